/// Rust (0.11) refuses a document whose mark end anchor precedes its begin
/// anchor, or sits in a different object (`MarkOrderValidator`): such a
/// mark has no well-defined extent. Ops of a document are grouped by object
/// and, within a text, in document order, so one pass decides it.
enum MarkOrderValidation {
    static let markAction: UInt8 = OpAction.mark.rawValue

    static func validate(_ document: StoredDocument) throws(LoadError) {
        var currentObject: StoredOpId?? = .none
        var openBegins = Set<StoredOpId>()
        func check(row: Int, object: StoredOpId?, id: StoredOpId?, isBegin: Bool) throws(LoadError) {
            if currentObject != .some(object) {
                currentObject = .some(object)
                openBegins.removeAll(keepingCapacity: true)
            }
            guard let id else { return }
            if isBegin {
                openBegins.insert(id)
            } else {
                guard id.counter > 0, openBegins.contains(StoredOpId(counter: id.counter - 1, actor: id.actor)) else {
                    throw .markEndBeforeBegin(row: row)
                }
            }
        }

        for (index, row) in document.ops.rows.enumerated() where row.action == markAction {
            try check(row: index, object: row.object, id: row.id, isBegin: row.markName != 0)
        }
    }
}
