/// A revision's attachments, keyed by name: names are told apart by their
/// Unicode scalars (see `ExactString`), so "é" and "e\u{301}" name two.
///
/// Written as Cloudant Sync's attachments dictionary is: add or replace one
/// with `rev.attachments[att.name] = att`, remove one with
/// `removeValue(forKey:)`, replace all with a dictionary or array literal,
/// remove all with `nil` or `[]`.
public struct Attachments: Sendable, Sequence, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral,
    ExpressibleByNilLiteral
{
    private var entries: [ExactString: any Attachment] = [:]

    public init() {}

    /// Attachments keyed by their names.
    public init(_ attachments: [any Attachment]) {
        for attachment in attachments { entries[ExactString(attachment.name)] = attachment }
    }

    public init(dictionaryLiteral elements: (String, any Attachment)...) {
        for (name, attachment) in elements { entries[ExactString(name)] = attachment }
    }

    public init(arrayLiteral elements: any Attachment...) { self.init(elements) }

    public init(nilLiteral: ()) {}

    /// The attachment named `name`; setting nil removes it.
    public subscript(name: String) -> (any Attachment)? {
        get { entries[ExactString(name)] }
        set { entries[ExactString(name)] = newValue }
    }

    /// Removes the attachment named `name`, returning it.
    @discardableResult
    public mutating func removeValue(forKey name: String) -> (any Attachment)? {
        entries.removeValue(forKey: ExactString(name))
    }

    /// Removes every attachment.
    public mutating func removeAll() { entries.removeAll() }

    /// The names, in code point order.
    public var names: [String] { entries.keys.sorted().map(\.string) }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    /// Name and attachment pairs, in the names' code point order.
    public func makeIterator() -> IndexingIterator<[(name: String, attachment: any Attachment)]> {
        entries.sorted { $0.key < $1.key }.map { (name: $0.key.string, attachment: $0.value) }.makeIterator()
    }
}
