#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A stable position in a list or text that follows concurrent edits.
///
/// Bytes and string forms are Rust's (version 1): a cursor made here can be
/// resolved by any Automerge implementation and vice versa.
public struct Cursor: Equatable, Hashable, Sendable, CustomStringConvertible {
    enum Anchor: Hashable, Sendable {
        case start
        case end
        /// An element: its op counter and actor; `before` moves the cursor to
        /// the previous element if this one is deleted, else to the next.
        case element(counter: UInt64, actor: ActorId, before: Bool)
    }

    let anchor: Anchor

    init(anchor: Anchor) { self.anchor = anchor }

    /// The binary form.
    public var bytes: Data {
        switch anchor {
        case .start: return Data([1, 1])
        case .end: return Data([1, 2])
        case .element(let counter, let actor, let before):
            var out: [UInt8] = [1, 3]
            LEB128.appendUnsigned(UInt64(actor.bytes.count), to: &out)
            out.append(contentsOf: actor.bytes)
            LEB128.appendUnsigned(counter, to: &out)
            out.append(before ? 1 : 2)
            return Data(out)
        }
    }

    /// Parses the binary form (versions 0 and 1); nil when malformed.
    public init?(bytes: Data) {
        var reader = [UInt8](bytes)[...]
        func uleb() -> UInt64? {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while let byte = reader.popFirst() {
                guard shift < 64 else { return nil }
                result |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return result }
                shift += 7
            }
            return nil
        }
        func actorId() -> ActorId? {
            guard let length = uleb(), length <= UInt64(reader.count) else { return nil }
            let actorBytes = Array(reader.prefix(Int(length)))
            reader = reader.dropFirst(Int(length))
            return ActorId(uncheckedBytes: actorBytes)
        }
        guard let version = reader.popFirst() else { return nil }
        if version == 0 {
            guard let actor = actorId(), let counter = uleb() else { return nil }
            self.init(anchor: .element(counter: counter, actor: actor, before: false))
            return
        }
        guard version == 1, let tag = reader.popFirst() else { return nil }
        switch tag {
        case 1: self.init(anchor: .start)
        case 2: self.init(anchor: .end)
        case 3:
            guard let actor = actorId(), let counter = uleb(), let move = reader.popFirst(), move == 1 || move == 2 else { return nil }
            self.init(anchor: .element(counter: counter, actor: actor, before: move == 1))
        default: return nil
        }
    }

    /// Parses the string form: `s`, `e`, `counter@actorhex` or `-counter@actorhex`.
    public init?(string: String) {
        if string == "s" { self.init(anchor: .start); return }
        if string == "e" { self.init(anchor: .end); return }
        var text = Substring(string)
        let before = text.first == "-"
        if before { text = text.dropFirst() }
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let counter = UInt64(parts[0]), let actor = ActorId(hexString: String(parts[1])) else { return nil }
        self.init(anchor: .element(counter: counter, actor: actor, before: before))
    }

    /// The binary form in uppercase hex, as automerge-swift describes a cursor.
    public var description: String { Hex.encode(bytes).uppercased() }

    /// The string form, as Rust prints it (read back by ``init(string:)``).
    public var string: String {
        switch anchor {
        case .start: return "s"
        case .end: return "e"
        case .element(let counter, let actor, let before): return "\(before ? "-" : "")\(counter)@\(actor.hexString)"
        }
    }
}

/// A place in a list or text: an index, or a cursor to resolve.
public enum Position: Equatable, Hashable, Sendable {
    /// A cursor, resolved against the document.
    case cursor(Cursor)
    /// An index in the document's text units.
    case index(UInt64)
}
