/// The rule Rust 0.11 checks when it loads a document (see
/// `MarkOrderValidation` in Storage): within an object, every mark end
/// anchor comes after its begin anchor (the op one counter before it, by the
/// same actor). Received changes are held to it too, since a document that
/// breaks it saves into bytes no loader accepts.
extension OpSet {
    /// Whether the mark anchors of the object at `index` are in order, read
    /// in document order (each element's insert op, then its updates).
    func markAnchorsInOrder(objectAt index: Int) -> Bool {
        let object = objects[index]
        var openBegins = Set<OpId>()
        var inOrder = true
        func visit(id: OpId, action: OpAction, isBegin: Bool) {
            guard action == .mark else { return }
            if isBegin {
                openBegins.insert(id)
            } else if id.counter == 0 || !openBegins.contains(OpId(counter: id.counter - 1, actor: id.actor)) {
                inOrder = false
            }
        }
        if !object.kind.isSequence {
            // A change may put mark ops on map keys too; a saved map lists
            // them by key (UTF-8 order), then by op id. Found by fuzzing:
            // Corpus/load/mark-end-on-a-map-key.
            let entries = entries(of: object)
            for key in entries.keys.sorted() where inOrder {
                guard let ops = entries[key] else { continue }
                for op in ops { visit(id: op.id, action: op.action, isBegin: op.markName != nil) }
            }
            return inOrder
        }
        let sequence = sequence(of: object)
        guard sequence.markCount > 0 else { return true }
        sequence.forEachElement { element in
            guard inOrder else { return }
            visit(id: element.id, action: element.action, isBegin: element.markName != nil)
            for update in element.updates { visit(id: update.id, action: update.action, isBegin: update.markName != nil) }
        }
        return inOrder
    }
}
