import Automerge

extension Document {
    /// The whole document as an ``AutomergeValue`` tree (the root is a `.dict`).
    public func schema() throws -> AutomergeValue {
        try parseToSchema(self, from: .ROOT)
    }

    /// The object `objId` of `doc` and everything below it, as an ``AutomergeValue`` tree.
    ///
    /// automerge-swift's signature reads `doc`, not the document it is called on.
    /// - Throws: `AutomergeError` when `objId` is not an object of `doc`.
    public func parseToSchema(_ doc: Document, from objId: ObjId) throws -> AutomergeValue {
        switch try doc.checkedObjectType(obj: objId) {
        case .Map:
            var entries: [String: AutomergeValue] = [:]
            for (key, value) in try doc.mapEntries(obj: objId) {
                entries[key] = try schemaValue(value, in: doc)
            }
            return .dict(entries)
        case .List:
            return .array(try doc.values(obj: objId).map { try schemaValue($0, in: doc) })
        case .Text:
            return .text(try doc.text(obj: objId))
        }
    }

    private func schemaValue(_ value: Value, in doc: Document) throws -> AutomergeValue {
        switch value {
        case .Scalar(let scalar): .scalar(scalar)
        case .Object(let id, _): try parseToSchema(doc, from: id)
        }
    }
}
