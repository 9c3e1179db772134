import Automerge

extension Document {
    /// Whether the root map has no keys.
    public func isEmpty() throws -> Bool {
        try mapEntries(obj: .ROOT).isEmpty
    }
}
