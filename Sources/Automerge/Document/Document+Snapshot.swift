#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The exact visible state of a document, for conformance dumps: values
/// keep their exact form (timestamps as milliseconds, floats by bits) and
/// text positions are Unicode scalars whatever the document's encoding.
@_spi(Conformance)
public indirect enum SnapshotValue: Equatable, Sendable {
    case map([(key: String, value: SnapshotValue)])
    case table([(key: String, value: SnapshotValue)])
    case list([SnapshotValue])
    case text(String, marks: [SnapshotMark])
    case scalar(Primitive)

    public static func == (lhs: SnapshotValue, rhs: SnapshotValue) -> Bool {
        switch (lhs, rhs) {
        case let (.map(a), .map(b)), let (.table(a), .table(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case let (.list(a), .list(b)): return a == b
        case let (.text(a, m1), .text(b, m2)): return a.unicodeScalars.elementsEqual(b.unicodeScalars) && m1 == m2
        case let (.scalar(a), .scalar(b)): return a == b
        default: return false
        }
    }
}

/// A mark span in a snapshot, positions in Unicode scalars.
@_spi(Conformance)
public struct SnapshotMark: Equatable, Sendable {
    public let name: String
    public let value: Primitive
    public let start: Int
    public let end: Int
}

/// What a conformance dump reports about a document.
@_spi(Conformance)
public struct DocumentSnapshot: Equatable, Sendable {
    /// Heads, sorted.
    public let heads: [ChangeHash]
    /// Number of applied changes (queued ones excluded).
    public let changes: Int
    /// The root map.
    public let root: SnapshotValue
}

extension Document {
    /// The exact visible state.
    @_spi(Conformance)
    public func snapshot() -> DocumentSnapshot {
        locked { state in
            state.commit()
            return DocumentSnapshot(heads: state.history.heads.sorted(), changes: state.history.count,
                                    root: state.snapshot(of: .root))
        }
    }
}

extension DocumentState {
    func snapshot(of id: OpId) -> SnapshotValue {
        guard let object = ops.object(id) else { return .map([]) }
        switch object.kind {
        case .map, .table:
            let entries = ops.visibleKeys(in: object, at: nil).map { key in
                (key: key.string, value: snapshot(ofOp: ops.winningOp(in: object, key: key, at: nil)!))
            }
            return object.kind == .map ? .map(entries) : .table(entries)
        case .list:
            return .list(ops.visibleElements(in: object, at: nil).map { snapshot(ofOp: $0.winner) })
        case .text:
            var marks: [SnapshotMark] = []
            scanMarks(in: object, at: nil, width: WidthRule(isText: true, encoding: .unicodeScalar)) { span in
                marks.append(SnapshotMark(name: span.name, value: span.value, start: span.start, end: span.end))
            }
            return .text(ops.text(of: object, at: nil), marks: marks)
        }
    }

    private func snapshot(ofOp op: Op) -> SnapshotValue {
        if op.action.objectType != nil { return snapshot(of: op.id) }
        return .scalar(ops.primitive(of: op, at: nil))
    }
}

extension Document {
    /// Applies change chunks without refusing changes that put a mark's end
    /// anchor before its begin anchor, as Rust's `apply_changes` does. For
    /// building invalid conformance vectors only: the document then saves
    /// into bytes that no loader, Rust 0.11's included, accepts.
    @_spi(Conformance)
    public func applyEncodedChangesAcceptingMisorderedMarks(_ bytes: Data) throws {
        try locked { state throws(AutomergeError) in
            state.refusesMisorderedMarks = false
            defer { state.refusesMisorderedMarks = true }
            try state.applyEncoded([UInt8](bytes))
        }
    }
}
