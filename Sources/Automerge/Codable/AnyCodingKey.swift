#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One step of a schema path: a map key or a list index.
///
/// Use it to name a location in a document for ``AutomergeEncoder/encode(_:at:)``,
/// ``AutomergeDecoder/decode(_:from:)``, ``Counter/bind(doc:path:)`` and
/// ``AutomergeText/bind(doc:path:)``.
///
/// ```swift
/// let path = try AnyCodingKey.parsePath(".settings.colors.[0]")
/// // [AnyCodingKey("settings"), AnyCodingKey("colors"), AnyCodingKey(0)]
/// ```
public struct AnyCodingKey: Hashable, Sendable {
    /// The key or index this step names.
    let prop: Prop

    /// A step from an Automerge property.
    public init(_ prop: Prop) {
        self.prop = prop
    }

    /// A step from the property of an Automerge path element.
    public init(_ element: PathElement) {
        prop = element.prop
    }

    /// A step from any coding key: its integer value when it has one, else its string value.
    public init(_ key: some CodingKey) {
        if let index = key.intValue, index >= 0 {
            prop = .Index(UInt64(index))
        } else {
            prop = .Key(key.stringValue)
        }
    }

    /// A map key.
    public init(_ key: String) {
        prop = .Key(key)
    }

    /// A list index.
    public init(_ index: UInt64) {
        prop = .Index(index)
    }

    /// The root of a document. As the first element of a path it stands for
    /// the empty path (the root map itself).
    public static let ROOT = AnyCodingKey(.Key(""))
}

extension AnyCodingKey: CodingKey {
    /// A list index; `nil` for a negative value.
    public init?(intValue: Int) {
        guard intValue >= 0 else { return nil }
        prop = .Index(UInt64(intValue))
    }

    /// A map key.
    public init?(stringValue: String) {
        prop = .Key(stringValue)
    }

    /// The map key, or the decimal index for a list index.
    public var stringValue: String {
        switch prop {
        case .Key(let key): return key
        case .Index(let index): return String(index)
        }
    }

    /// The list index, or `nil` for a map key.
    public var intValue: Int? {
        if case .Index(let index) = prop { return Int(clamping: index) }
        return nil
    }
}

extension AnyCodingKey: CustomStringConvertible {
    /// The key, or the index in brackets (`[3]`), as in a parsed path.
    public var description: String {
        switch prop {
        case .Key(let key): return key
        case .Index(let index): return "[\(index)]"
        }
    }
}

extension AnyCodingKey {
    /// Parses a dot-separated path such as `.settings.colors.[0].name`.
    ///
    /// Components in brackets are list indexes; any other non-empty component
    /// is a map key (leading and repeated dots are ignored, so `""` and `"."`
    /// are the root).
    /// - Throws: ``PathParseError/EmptyListIndex(_:)`` for `[]`,
    ///   ``PathParseError/InvalidPathElement(_:)`` for a bracketed component that is not an index.
    public static func parsePath(_ path: String) throws -> [AnyCodingKey] {
        try path.split(separator: ".", omittingEmptySubsequences: true).map { component in
            guard component.hasPrefix("[") else { return AnyCodingKey(String(component)) }
            guard component.hasSuffix("]"), component.count >= 2 else {
                throw PathParseError.InvalidPathElement("'\(component)' in path '\(path)' opens a list index but does not close it")
            }
            let digits = component.dropFirst().dropLast()
            if digits.isEmpty {
                throw PathParseError.EmptyListIndex("'\(component)' in path '\(path)' has no index value")
            }
            guard let index = UInt64(digits) else {
                throw PathParseError.InvalidPathElement("'\(component)' in path '\(path)' is not a non-negative list index")
            }
            return AnyCodingKey(index)
        }
    }
}

extension Sequence where Element == any CodingKey {
    /// The path as text, for example `.notes.[2].title`.
    public func stringPath() -> String {
        "." + map { AnyCodingKey($0).description }.joined(separator: ".")
    }
}

extension Sequence where Element == AnyCodingKey {
    /// The path as text, for example `.notes.[2].title`.
    public func stringPath() -> String {
        "." + map(\.description).joined(separator: ".")
    }
}

extension Array where Element == AnyCodingKey {
    /// The path without a leading ``AnyCodingKey/ROOT``.
    var droppingRoot: ArraySlice<AnyCodingKey> {
        first == .ROOT ? dropFirst() : self[...]
    }
}
