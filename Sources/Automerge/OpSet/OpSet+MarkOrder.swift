/// The rule Rust 0.11 checks when it loads a document (see
/// `MarkOrderValidation` in Storage): within an object, every mark end
/// anchor comes after its begin anchor (the op one counter before it, by the
/// same actor). Received changes are held to it too, since a document that
/// breaks it saves into bytes no loader accepts.
extension OpSet {
    /// Whether the mark anchors of the object at `index` are in order, read
    /// in document order (each element's insert op, then its updates).
    func markAnchorsInOrder(objectAt index: Int) -> Bool {
        let sequence = objects[index].sequence
        guard sequence.markCount > 0 else { return true }
        var openBegins = Set<OpId>()
        var inOrder = true
        func visit(_ op: Op) {
            guard op.action == .mark else { return }
            if op.markName != nil {
                openBegins.insert(op.id)
            } else if op.id.counter == 0 || !openBegins.contains(OpId(counter: op.id.counter - 1, actor: op.id.actor)) {
                inOrder = false
            }
        }
        sequence.forEachElement { element in
            guard inOrder else { return }
            visit(element.insertOp)
            for update in element.updates { visit(update) }
        }
        return inOrder
    }
}
