extension Document {
    /// The object at a schema path such as `.list.[0].name`, as ``AnyCodingKey/parsePath(_:)`` reads it.
    ///
    /// - Returns: the root for an empty path; the object at the path; `nil`
    ///   when the path ends at a scalar, at nothing, or one past the end of a list.
    /// - Throws: ``PathParseError`` for a path that does not parse, and
    ///   ``CodingKeyLookupError`` for one the document cannot follow: a
    ///   missing container on the way, a step through text or a scalar, an
    ///   index on a map or a key on a list, an index past the end of a list.
    public func lookupPath(path: String) throws -> ObjId? {
        let keys = try AnyCodingKey.parsePath(path)
        if keys.isEmpty { return .ROOT }
        guard case .Object(let id, _) = try PathResolver(doc: self).read(keys).value else { return nil }
        return id
    }
}

extension Sequence where Element == PathElement {
    /// The path as text in ``AnyCodingKey/parsePath(_:)``'s form, for example `.notes.[2].title`.
    public func stringPath() -> String {
        map { AnyCodingKey($0) }.stringPath()
    }
}
