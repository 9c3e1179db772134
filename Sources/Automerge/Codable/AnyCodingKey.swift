#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One step of a schema path: a map key or a list index.
///
/// Use it to name a location in a document for ``AutomergeEncoder/encode(_:at:)``,
/// ``AutomergeDecoder/decode(_:from:)``, ``Counter/bind(doc:path:)-(_,[AnyCodingKey])`` and
/// ``AutomergeText/bind(doc:path:)-(_,[AnyCodingKey])``.
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
    /// Parses a dot-separated path such as `.settings.colors.[0].name`, by
    /// automerge-swift's rules.
    ///
    /// Empty components are skipped (so `""` and `"."` are the root). A
    /// component that starts with an ASCII letter is a map key; one in
    /// brackets is a list index. Anything else (`1`, `/`, `_id`, `é`) is
    /// refused, as automerge-swift refuses it.
    /// - Throws: ``PathParseError/EmptyListIndex(_:)`` for brackets that hold
    ///   no non-negative integer (`[]`, `[x]`), ``PathParseError/InvalidPathElement(_:)``
    ///   for any other component that is neither a key nor an index. The
    ///   error carries the component.
    public static func parsePath(_ path: String) throws -> [AnyCodingKey] {
        try path.split(separator: ".").map { component throws(PathParseError) in
            if let first = component.first, first.isASCII, first.isLetter { return AnyCodingKey(String(component)) }
            guard component.first == "[", component.last == "]", component.count >= 2 else {
                throw .InvalidPathElement(String(component))
            }
            guard let index = UInt64(component.dropFirst().dropLast()) else { throw .EmptyListIndex(String(component)) }
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
