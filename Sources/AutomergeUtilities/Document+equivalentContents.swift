import Automerge

extension Document {
    /// Whether this document and `anotherDoc` hold the same contents now:
    /// equal ``schema()`` trees, whatever their histories and actors.
    /// Returns `false` if either cannot be read.
    public func equivalentContents(_ anotherDoc: Document) -> Bool {
        guard let mine = try? schema(), let theirs = try? anotherDoc.schema() else { return false }
        return mine == theirs
    }
}
