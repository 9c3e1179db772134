/// The members of a JSON object, in the order they were added, each key
/// once by its Unicode scalars (see ``ExactString``): "é" and "e\u{301}" are
/// two members, as JSON has them, where a `[String: JSONValue]` would keep
/// one. Two objects are equal when they have the same keys with equal
/// values, in any order.
public struct JSONObject: RandomAccessCollection, Equatable, Sendable, ExpressibleByDictionaryLiteral {
    /// One member: its key and value.
    public typealias Element = (key: String, value: JSONValue)

    private var members: [Element] = []
    /// Each key's position in `members`, kept from ``indexThreshold``
    /// members on; smaller objects (most of a dump's) are searched.
    private var positions: [ExactString: Int] = [:]
    private static let indexThreshold = 16

    /// An object without members.
    public init() {}

    /// An object of `members`, in their order; a later member replaces an
    /// earlier one of the same key, in place.
    public init(_ members: some Sequence<Element>) {
        for (key, value) in members { self[key] = value }
    }

    /// An object of the literal's members; a later member replaces an
    /// earlier one of the same key.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (key, value) in elements { self[key] = value }
    }

    /// The first position.
    public var startIndex: Int { 0 }
    /// The position past the last member.
    public var endIndex: Int { members.count }
    /// The member at `position`, in the order added.
    public subscript(position: Int) -> Element { members[position] }

    /// The keys, in the order added.
    public var keys: [String] { members.map(\.key) }

    /// The members in key order: by scalars, which is UTF-8 byte order.
    public var sortedByKey: [Element] { members.sorted { ExactString($0.key) < ExactString($1.key) } }

    /// The value of the member whose key has exactly `key`'s scalars; set
    /// to add or replace it, nil to remove it.
    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { members[$0].value } }
        set {
            switch (position(of: key), newValue) {
            case (let index?, let value?): members[index].value = value
            case (nil, let value?): _ = add(key, value)
            case (let index?, nil):
                members.remove(at: index)
                reindex()
            case (nil, nil): break
            }
        }
    }

    /// Adds a member at the end; false, changing nothing, when a member has `key` already.
    mutating func add(_ key: String, _ value: JSONValue) -> Bool {
        guard position(of: key) == nil else { return false }
        members.append((key, value))
        if members.count == Self.indexThreshold {
            reindex()
        } else if members.count > Self.indexThreshold {
            positions[ExactString(key)] = members.count - 1
        }
        return true
    }

    /// The same keys, in the same order, with `transform` of each value.
    public func mapValues(_ transform: (JSONValue) throws -> JSONValue) rethrows -> JSONObject {
        var result = self
        for index in members.indices { result.members[index].value = try transform(members[index].value) }
        return result
    }

    /// Whether `a` and `b` have the same keys (by scalars) with equal values, in any order.
    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        a.count == b.count && a.members.allSatisfy { b[$0.key] == $0.value }
    }

    private func position(of key: String) -> Int? {
        if members.count >= Self.indexThreshold { return positions[ExactString(key)] }
        return members.firstIndex { $0.key.utf8.elementsEqual(key.utf8) }
    }

    private mutating func reindex() {
        positions = [:]
        guard members.count >= Self.indexThreshold else { return }
        for (index, member) in members.enumerated() { positions[ExactString(member.key)] = index }
    }
}
