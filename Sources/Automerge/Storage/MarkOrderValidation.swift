/// Rust (0.11) refuses a document whose mark end anchor precedes its begin
/// anchor, or sits in a different object (`MarkOrderValidator`): such a
/// mark has no well-defined extent. Ops of a document are grouped by object
/// and, within a text, in document order, so one pass decides it.
enum MarkOrderValidation {
    static let markAction: UInt64 = 7

    static func validate(_ document: StoredDocument) throws(LoadError) {
        var currentObject: StoredOpId?? = .none
        var openBegins = Set<StoredOpId>()
        for (row, op) in document.ops.enumerated() where op.action == markAction {
            if currentObject != .some(op.object) {
                currentObject = .some(op.object)
                openBegins.removeAll(keepingCapacity: true)
            }
            guard let id = op.id else { continue }
            if op.markName != nil {
                openBegins.insert(id)
            } else {
                guard id.counter > 0, openBegins.contains(StoredOpId(counter: id.counter - 1, actor: id.actor)) else {
                    throw .markEndBeforeBegin(row: row)
                }
            }
        }
    }
}
