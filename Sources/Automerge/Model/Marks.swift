/// How a mark grows when text is inserted at its edges.
public enum ExpandMark: Equatable, Hashable, Sendable {
    /// Text inserted right before the mark joins it.
    case before
    /// Text inserted right after the mark joins it (the default).
    case after
    /// Both.
    case both
    /// Neither.
    case none

    var expandsBefore: Bool { self == .before || self == .both }
    var expandsAfter: Bool { self == .after || self == .both }
}

/// A named value over a range of text, such as bold or a link.
public struct Mark: Equatable, Hashable, Sendable {
    /// Start position (inclusive) in the document's text encoding.
    public let start: UInt64
    /// End position (exclusive).
    public let end: UInt64
    /// The mark's name.
    public let name: String
    /// The mark's value.
    public let value: ScalarValue

    /// A mark.
    public init(start: UInt64, end: UInt64, name: String, value: ScalarValue) {
        self.start = start
        self.end = end
        self.name = name
        self.value = value
    }
}
