#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A change chunk in words: its header and one line per op, for reports
/// that show where two implementations' changes part (the conformance
/// harness's first-difference diffs).
@_spi(Conformance)
public struct ChangeDescription: Equatable, Sendable {
    public let hash: ChangeHash
    /// `seq N of ACTOR, start op S, time T, message M, deps [...]`.
    public let header: String
    /// One line per op: `id: action object key [insert] value pred [...]`.
    public let ops: [String]

    /// Describes the change chunk (plain or compressed) that `bytes` begin with.
    public init(changeBytes bytes: Data) throws {
        let chunk = try ChunkFraming.split([UInt8](bytes)).first
        guard let chunk, chunk.isChange else {
            throw LoadError.unexpectedChunkType(expected: ChunkType.change.rawValue, found: chunk?.type.rawValue ?? 0)
        }
        let change = try ChangeChunk.decode(chunk)
        hash = chunk.changeHash
        let actors = change.actors.map(\.hexString)
        func id(_ stored: StoredOpId?) -> String {
            guard let stored else { return "_root" }
            return "\(stored.counter)@\(stored.actor < actors.count ? actors[stored.actor] : "actor#\(stored.actor)")"
        }
        header = "seq \(change.sequence) of \(actors.first ?? "?"), start op \(change.startOp), time \(change.time), "
            + "message \(change.message.map { "\"\($0)\"" } ?? "none"), deps [\(change.dependencies.map(\.description).joined(separator: ", "))]"
        ops = change.ops.enumerated().map { offset, op in
            let key: String
            switch op.key {
            case .map(let name): key = "key \"\(name)\""
            case .element(let element): key = "after \(element.map { id($0) } ?? "_head")"
            }
            let action = OpAction(rawValue: UInt8(truncatingIfNeeded: op.action)).map { "\($0)" } ?? "action \(op.action)"
            var line = "\(change.startOp + UInt64(offset))@\(actors.first ?? "?"): \(action) in \(id(op.object)) \(key)"
            if op.insert { line += " insert" }
            if let name = op.markName { line += " mark \"\(name)\"\(op.expand ? " expand" : "")" }
            line += " value \(op.value)"
            line += " pred [\(op.predecessors.map { id($0) }.joined(separator: ", "))]"
            return line
        }
    }
}
