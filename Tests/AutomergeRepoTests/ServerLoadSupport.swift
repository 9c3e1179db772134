import Automerge
import AutomergeRepo
import Foundation
import Testing

/// What every attack test checks while the attack runs: another client's
/// small request is still answered. A check that it is answered at all,
/// not how soon: the client and the in-process server run on Swift's
/// cooperative pool, which the rest of the suite can hold for minutes on a
/// 2-core machine (a 20 s deadline failed in CI while the server was
/// healthy). How soon is measured off the pool: by tests that time on
/// threads of their own and by `automerge-bench serve`.
func expectHonestClientServed(_ server: LoopbackServer, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let client = loopbackClient(server)
    let handle = try await client.create()
    try handle.document.put(obj: .ROOT, key: "honest", value: .String("yes"))
    do {
        try await handle.waitUntilSynced(timeout: .seconds(600))
    } catch {
        Issue.record("an honest client's request was not answered: \(error)", sourceLocation: sourceLocation)
    }
    await client.close()
}

/// A raw peer that has joined `server` as `peer` (with `metadata`).
func joinedRawPeer(_ server: LoopbackServer, as peer: PeerId = RawPeer.peerId, metadata: PeerMetadata? = nil,
                   receiveWindow: Int32 = 4096) async throws -> RawSocketPeer
{
    let raw = try await RawSocketPeer.open(port: server.port, receiveWindow: receiveWindow)
    try await raw.sendBinaryFrame(RepoMessage.join(senderId: peer, peerMetadata: metadata).encoded())
    return raw
}

/// `count` random bytes (which no compression shrinks): a slice of one
/// buffer drawn once, so that no test spends the cooperative pool's time
/// drawing them (debug builds draw a byte in about a microsecond).
func randomBytes(_ count: Int) -> [UInt8] {
    precondition(count <= randomPool.count, "at most \(randomPool.count) random bytes")
    let start = Int.random(in: 0...(randomPool.count - count))
    return Array(randomPool[start..<(start + count)])
}

private let randomPool: [UInt8] = {
    var generator = SystemRandomNumberGenerator()
    return (0..<((2 << 20) / 8)).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } }
}()

/// A document on `server` holding `size` random bytes, stored by a client that then leaves.
func storedDocument(on server: LoopbackServer, size: Int) async throws -> DocumentId {
    let writer = loopbackClient(server)
    let handle = try await writer.create()
    try handle.document.put(obj: .ROOT, key: "filler", value: .Bytes(Data(randomBytes(size))))
    try await handle.waitUntilSynced(timeout: .seconds(30))
    await writer.close()
    return handle.id
}

/// The sync message a peer holding nothing sends first (184 bytes or so).
var syncMessageFromNothing: [UInt8] { Array(Document().generateSyncMessage(state: SyncState())!) }

/// A sync message whose heads are another document's and that has had
/// nothing: its reply is the whole document, though its sender claims to hold something.
func syncMessageClaimingUnknownHeads() throws -> [UInt8] {
    let elsewhere = Document()
    try elsewhere.put(obj: .ROOT, key: "elsewhere", value: .Int(1))
    return SyncMessage(heads: Array(elsewhere.heads()), have: [SyncHave()]).encoded()
}
