/// A value reduced to what decides equality between the model and the
/// document: scalars compared exactly (floats by bit pattern, dates by
/// millisecond), maps by key, lists in order, text by content.
indirect enum CodableSnapshot: Hashable {
    case scalar(Primitive)
    case map([String: CodableSnapshot])
    case list([CodableSnapshot])
    case text(String)

    /// The snapshot of a model value.
    init(_ value: EncodedValue) {
        switch value.resolved {
        case .scalar(let scalar): self = .scalar(Primitive(scalar))
        case .map(let map): self = .map(Dictionary(uniqueKeysWithValues: map.entries.map { ($0.key, CodableSnapshot($0.value)) }))
        case .list(let list): self = .list(list.resolvedItems.map(CodableSnapshot.init))
        case .text(let text): self = .text(text.value)
        case .counter(let counter): self = .scalar(.counter(Int64(counter.value)))
        case .deferred: self = .map([:])
        }
    }

    /// The snapshot of a document value, reading objects recursively.
    init(_ value: Value, in doc: Document) throws {
        switch value {
        case .Scalar(let scalar):
            self = .scalar(Primitive(scalar))
        case .Object(let id, .Map):
            var entries: [String: CodableSnapshot] = [:]
            for (key, child) in try doc.mapEntries(obj: id) { entries[key] = try CodableSnapshot(child, in: doc) }
            self = .map(entries)
        case .Object(let id, .List):
            self = .list(try doc.values(obj: id).map { try CodableSnapshot($0, in: doc) })
        case .Object(let id, .Text):
            self = .text(try doc.text(obj: id))
        }
    }
}

extension Primitive {
    /// Whether two public scalars are the same value as a document stores it.
    static func same(_ lhs: ScalarValue, _ rhs: ScalarValue) -> Bool {
        Primitive(lhs) == Primitive(rhs)
    }
}
