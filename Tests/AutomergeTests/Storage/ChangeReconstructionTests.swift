import Foundation
import Testing
@_spi(Conformance) @testable import Automerge

@Suite("Rebuilding changes from a document")
struct ChangeReconstructionTests {
    typealias S = StorageSamples

    @Test("each change gets its ops, with predecessors from successors and deletes synthesized")
    func rebuild() throws {
        let changes = try ChangeReconstruction.reconstruct(S.document)
        #expect(changes.count == 2)

        let first = try changes[0].storedChange()
        #expect(first.actors == [S.actorA])
        #expect(first.sequence == 1 && first.startOp == 1)
        #expect(first.dependencies.isEmpty)
        #expect(first.ops == [
            S.op(key: .map("list"), action: 2),
            S.op(key: .map("x"), action: 1, value: .int(1)),
        ])

        // B's change mentions A, so A is its other actor (index 1).
        let second = try changes[1].storedChange()
        #expect(second.actors == [S.actorB, S.actorA])
        #expect(second.startOp == 3)
        #expect(second.time == 1_700_000_000 && second.message == "hi")
        #expect(second.dependencies == [changes[0].hash])
        #expect(second.ops == [
            S.op(key: .map("x"), action: 1, value: .string("y"), predecessors: [S.id(2, 1)]),
            S.op(object: S.id(1, 1), key: .element(nil), insert: true, action: 1, value: .uint(7)),
            // The delete of element 4@B exists only as 4@B's successor.
            S.op(object: S.id(1, 1), key: .element(S.id(4, 0)), action: 3, predecessors: [S.id(4, 0)]),
        ])
        #expect(changes[1].hash == S.document.heads[0])
        let dependencies = try changes.flatMap { try $0.storedChange().dependencies }
        #expect(Set(changes.map(\.hash)).subtracting(dependencies).sorted() == S.document.heads)
    }

    @Test("a history long enough to be encoded in chunks on two cores loads with every change as committed")
    func longHistoryRebuildsInChunks() throws {
        let peers = (0..<3).map { index -> Document in
            let peer = Document()
            peer.actor = ActorId(data: Data(repeating: UInt8(index + 1), count: 16))!
            return peer
        }
        let text = try peers[0].putObject(obj: .ROOT, key: "text", ty: .Text)
        peers[0].commitWith(timestamp: Date(timeIntervalSince1970: 0))
        for peer in peers.dropFirst() { try peer.merge(other: peers[0]) }
        // Enough for several encoding chunks of uneven sizes (see InOrderPipeline).
        let total = 2 * ChangeReconstruction.changesEncodedInParallel + 1000
        for index in 0..<total {
            let peer = peers[index % 3]
            if index % 2 == 0 {
                try peer.put(obj: .ROOT, key: "k\(index % 7)", value: .Int(Int64(index)))
            } else {
                try peer.spliceText(obj: text, start: 0, delete: index % 5 == 1 ? 1 : 0, value: "x")
            }
            peer.commitWith(timestamp: Date(timeIntervalSince1970: Double(index)))
            // Peers meet now and then, so that changes depend on other actors' and run concurrently.
            if index % 97 == 0 { try peers[(index + 1) % 3].merge(other: peer) }
        }
        for peer in peers.dropFirst() { try peers[0].merge(other: peer) }
        let loaded = try Document(peers[0].save())
        // Heads are checked on load: each rebuilt hash covers its ancestors' hashes.
        #expect(loaded.heads() == peers[0].heads())
        #expect(loaded.getHistory() == peers[0].getHistory())
        #expect(loaded.getHistory().count > ChangeReconstruction.changesEncodedInParallel)
    }

    @Test("a rebuilt change's header and max op are those of its encoding")
    func rebuiltChangesRoundTrip() throws {
        for change in try ChangeReconstruction.reconstruct(S.document) {
            let decoded = try S.decodeChange(Array(change.bytes))
            #expect(decoded.header.startOp == change.startOp)
            #expect(decoded.maxOp == change.maxOp)
        }
    }

    @Test("stored heads that the changes do not produce are rejected")
    func headsMismatch() {
        var document = S.document
        let wrong = ChangeHash(bytes: [UInt8](repeating: 7, count: 32))
        document.heads = [wrong]
        #expect(throws: LoadError.self) { try ChangeReconstruction.reconstruct(document) }
        do {
            _ = try ChangeReconstruction.reconstruct(document)
        } catch {
            guard case let .headsMismatch(stored, computed) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(stored == [wrong])
            #expect(computed == S.document.heads)
        }
    }

    @Test("a change whose ops have a gap is missing ops")
    func missingOps() {
        var document = S.document
        document.changes[1].maxOp = 6  // no op 6@B
        #expect(throws: LoadError.missingOps(change: 1)) { try ChangeReconstruction.reconstruct(document) }
    }

    @Test("an op beyond every change of its actor belongs to no change")
    func opOutsideChanges() {
        var document = S.document
        document.ops[0].id = S.id(9, 0)
        #expect(throws: LoadError.opOutsideChanges(row: 0)) { try ChangeReconstruction.reconstruct(document) }
    }

    @Test("two ops with one id are rejected")
    func duplicateIds() {
        var document = S.document
        document.ops[1].id = S.id(1, 0)
        #expect(throws: LoadError.duplicateOpId(row: 1)) { try ChangeReconstruction.reconstruct(document) }
    }

    @Test("an empty change starts after its maxOp")
    func emptyChange() throws {
        var document = S.document
        document.changes.append(StoredChangeMetadata(
            actor: 0, sequence: 2, maxOp: 5, time: 0, message: "", dependencies: [1], extraBytes: [1]))
        let changes = try ChangeReconstruction.reconstruct(document, verifyHeads: false)
        let empty = try changes[2].storedChange()
        #expect(changes[2].startOp == 6 && empty.header.startOp == 6)
        #expect(empty.ops.isEmpty)
        #expect(empty.header.message == nil, "an empty message is no message")
        #expect(empty.header.extraBytes == [1])
    }
}
