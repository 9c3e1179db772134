import Foundation
import Testing
@testable import Automerge

/// Rust's test helper: both sides generate, then receive, until neither
/// has anything to send; fails after 10 iterations.
func sync(_ a: Document, _ b: Document, _ stateA: SyncState = SyncState(), _ stateB: SyncState = SyncState(),
          sourceLocation: SourceLocation = #_sourceLocation) throws {
    for _ in 0...10 {
        let aToB = a.generateSyncMessage(state: stateA)
        let bToA = b.generateSyncMessage(state: stateB)
        if aToB == nil && bToA == nil { return }
        if let aToB { try b.receiveSyncMessage(state: stateB, message: aToB) }
        if let bToA { try a.receiveSyncMessage(state: stateA, message: bToA) }
    }
    Issue.record("failed to sync in 10 iterations", sourceLocation: sourceLocation)
}

/// A document writing as `hex` with `count` committed puts of `key`.
func document(actor hex: String, puts count: Int = 0, key: String = "x") -> Document {
    let doc = Document()
    doc.actor = ActorId(hexString: hex)!
    for index in 0..<count {
        try! doc.put(obj: .ROOT, key: key, value: .Int(Int64(index)))
        doc.commitChange()
    }
    return doc
}

extension Document {
    func string(_ key: String) -> String? {
        if case .Scalar(.String(let value))? = try? get(obj: .ROOT, key: key) { return value }
        return nil
    }
}

func decoded(_ message: Data?) throws -> SyncMessage {
    try SyncMessage(bytes: try #require(message))
}
