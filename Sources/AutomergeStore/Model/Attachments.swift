/// A revision's attachments, keyed by name.
///
/// Written as Cloudant Sync's attachments dictionary is: add or replace one
/// with `rev.attachments[att.name] = att`, remove one with
/// `removeValue(forKey:)`, replace all with a dictionary or array literal,
/// remove all with `nil` or `[]`.
public struct Attachments: Sendable, Sequence, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral,
    ExpressibleByNilLiteral
{
    private var entries: [String: any Attachment] = [:]

    public init() {}

    /// Attachments keyed by their names.
    public init(_ attachments: [any Attachment]) {
        for attachment in attachments { entries[attachment.name] = attachment }
    }

    public init(dictionaryLiteral elements: (String, any Attachment)...) {
        for (name, attachment) in elements { entries[name] = attachment }
    }

    public init(arrayLiteral elements: any Attachment...) { self.init(elements) }

    public init(nilLiteral: ()) {}

    /// The attachment named `name`; setting nil removes it.
    public subscript(name: String) -> (any Attachment)? {
        get { entries[name] }
        set { entries[name] = newValue }
    }

    /// Removes the attachment named `name`, returning it.
    @discardableResult
    public mutating func removeValue(forKey name: String) -> (any Attachment)? {
        entries.removeValue(forKey: name)
    }

    /// Removes every attachment.
    public mutating func removeAll() { entries.removeAll() }

    /// The names, sorted.
    public var names: [String] { entries.keys.sorted() }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    /// Name and attachment pairs, in name order.
    public func makeIterator() -> IndexingIterator<[(name: String, attachment: any Attachment)]> {
        entries.sorted { $0.key < $1.key }.map { (name: $0.key, attachment: $0.value) }.makeIterator()
    }
}
