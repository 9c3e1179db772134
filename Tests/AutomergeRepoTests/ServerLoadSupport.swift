import Automerge
import AutomergeRepo
import Foundation
import Testing

/// The test process's resident memory, sampled on a thread of its own
/// while an attack runs: the server runs in this process, so its growth is
/// the server's (and the attack's own buffers, which the bounds allow for).
final class ResidentMemoryWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var peak = 0
    private var running = true
    /// The resident memory when the watch started, in bytes.
    let baseline: Int

    init() {
        baseline = Self.current()
        peak = baseline
        Thread { [self] in
            while lock.withLock({ running }) {
                let now = Self.current()
                lock.withLock { peak = max(peak, now) }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }.start()
    }

    /// The most the resident memory rose above ``baseline``, so far, in bytes.
    var peakGrowth: Int { lock.withLock { peak } - baseline }

    func stop() { lock.withLock { running = false } }

    /// VmRSS from /proc/self/status (0 where there is none).
    static func current() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes << 10
    }
}

/// What every attack test checks while the attack runs: another client's
/// small request is still answered.
func expectHonestClientServed(_ server: LoopbackServer, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let client = loopbackClient(server)
    let handle = try await client.create()
    try handle.document.put(obj: .ROOT, key: "honest", value: .String("yes"))
    do {
        try await handle.waitUntilSynced(timeout: .seconds(20))
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

/// `count` random bytes (which no compression shrinks).
func randomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
}

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
