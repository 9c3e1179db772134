import ArgumentParser
import Automerge
import AutomergeConformance
import AutomergeRepo
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOPosix

/// One hostile peer of each kind the sync server must withstand (see
/// docs/decisions.md, "The sync server under a stranger's load"), run beside
/// `automerge-bench serve --attack`'s honest clients until cancelled. Each
/// reconnects when the server closes it, so the attack lasts the whole run.
struct ServeAttackers: Sendable {
    let url: String
    let port: Int
    /// Honest documents to aim at.
    let targets: [DocumentId]
    let serverPeer: PeerId
    /// The kinds to run (``kinds`` names them).
    var only: Set<String> = Set(Self.kinds)

    /// How many honest documents the bench gives the attackers to aim at.
    static let targetCount = 3

    /// Every kind of attacker, by name.
    static let kinds = ["many-actors", "half-open", "ahead-of-history", "whole-again", "ephemeral", "unfinished", "churn"]

    /// The kinds named in `list` (comma-separated), each one of ``kinds``.
    static func kinds(parsing list: String, option: String) throws -> Set<String> {
        let named = Set(list.split(separator: ",").map(String.init))
        guard named.isSubset(of: kinds) else { throw ValidationError("\(option): some of \(kinds.joined(separator: ","))") }
        return named
    }

    /// Runs the attackers until the calling task is cancelled.
    func run() async {
        let manyActors = only.contains("many-actors") ? (try? HostileInputs.family(named: "concurrent-actors")!.crafted(1 << 15)) ?? [] : []
        await withTaskGroup(of: Void.self) { group in
            func add(_ kind: String, _ body: @escaping @Sendable () async -> Void) {
                if only.contains(kind) { group.addTask(operation: body) }
            }
            add("many-actors") { await repeatedly("many-actors") { peer in try await sendManyActors(manyActors, as: peer) } }
            add("half-open") { await halfOpenSockets(count: 500) }
            add("ahead-of-history") { await repeatedly("ahead-of-history") { peer in try await sendChangesAheadOfHistory(as: peer) } }
            add("whole-again") { await repeatedly("whole-again") { peer in try await askAgainAndAgain(as: peer) } }
            add("ephemeral") { await repeatedly("shouter") { peer in try await shoutEphemeral(as: peer) } }
            for index in 0..<10 {
                add("ephemeral") { await repeatedly("silent-\(index)") { peer in try await followWithoutReading(as: peer) } }
            }
            add("unfinished") { await repeatedly("unfinished") { peer in try await leaveMessageUnfinished(as: peer) } }
            add("churn") { await repeatedly("churn") { peer in try await joinWithNewStorageId(as: peer) } }
            await group.waitForAll()
        }
    }

    /// Runs `attack` on a new connection each time the last one ends, until cancelled.
    private func repeatedly(_ name: String, _ attack: @escaping @Sendable (PeerId) async throws -> Void) async {
        var round = 0
        while !Task.isCancelled {
            round += 1
            try? await attack(PeerId("attacker-\(name)-\(round)"))
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Connects as `peer`, joins, and runs `body` on the connection.
    private func connected(as peer: PeerId, metadata: PeerMetadata? = nil,
                           _ body: @escaping @Sendable (WebSocketInboundStream, WebSocketOutboundWriter) async throws -> Void)
        async throws
    {
        var logger = Logger(label: "automerge.bench.attacker")
        logger.logLevel = .critical
        _ = try await WebSocketClient.connect(url: url, configuration: WebSocketClientConfiguration(maxFrameSize: 64 << 20),
                                              logger: logger)
        { inbound, outbound, _ in
            try await outbound.write(.binary(ByteBuffer(bytes: RepoMessage.join(senderId: peer, peerMetadata: metadata).encoded())))
            try await body(inbound, outbound)
        }
    }

    private func send(_ message: RepoMessage, _ outbound: WebSocketOutboundWriter) async throws {
        try await outbound.write(.binary(ByteBuffer(bytes: message.encoded())))
    }

    private func sync(_ peer: PeerId, _ document: DocumentId, _ message: SyncMessage) -> RepoMessage {
        .sync(senderId: peer, targetId: serverPeer, documentId: document, data: Array(message.encode()))
    }

    private func drain(_ inbound: WebSocketInboundStream) async throws {
        for try await _ in inbound.messages(maxSize: 64 << 20) {}
    }

    /// A message of thousands of one-change actors, for a new document, every few seconds.
    private func sendManyActors(_ changes: [UInt8], as peer: PeerId) async throws {
        try await connected(as: peer) { inbound, outbound in
            try await send(sync(peer, .random(), SyncMessage(have: [SyncHave()], changes: [changes])), outbound)
            try await Task.sleep(for: .seconds(5))
        }
    }

    /// Sockets that send half an HTTP header, opened again as the server closes them.
    private func halfOpenSockets(count: Int) async {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask {
                    while !Task.isCancelled {
                        guard let channel = try? await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                            .connect(host: "127.0.0.1", port: port).get()
                        else { try? await Task.sleep(for: .seconds(1)); continue }
                        try? await channel.writeAndFlush(ByteBuffer(string: "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgr")).get()
                        await withTaskCancellationHandler {
                            try? await channel.closeFuture.get()
                        } onCancel: {
                            channel.close(promise: nil)
                        }
                    }
                }
            }
        }
    }

    /// Sync messages of changes whose dependencies the document lacks, until refused.
    private func sendChangesAheadOfHistory(as peer: PeerId) async throws {
        let target = targets[0]
        try await connected(as: peer) { inbound, outbound in
            async let reading: Void = drain(inbound)
            while !Task.isCancelled {
                try await send(sync(peer, target, SyncMessage(have: [SyncHave()], changes: try Self.changesAheadOfHistory(4))), outbound)
                try await Task.sleep(for: .milliseconds(200))
            }
            try await reading
        }
    }

    /// The same whole document, asked for by a peer that says it holds nothing, again and again.
    private func askAgainAndAgain(as peer: PeerId) async throws {
        let target = targets[0]
        let fromNothing = Document().generateSyncMessage(state: SyncState())!
        try await connected(as: peer) { inbound, outbound in
            async let reading: Void = drain(inbound)
            while !Task.isCancelled {
                try await send(.sync(senderId: peer, targetId: serverPeer, documentId: target, data: Array(fromNothing)), outbound)
                try await Task.sleep(for: .milliseconds(10))
            }
            try await reading
        }
    }

    /// Ephemeral messages, large and past the limit, to the followers of a document.
    private func shoutEphemeral(as peer: PeerId) async throws {
        let target = targets[0]
        let fromNothing = Array(Document().generateSyncMessage(state: SyncState())!)
        try await connected(as: peer) { inbound, outbound in
            async let reading: Void = drain(inbound)
            try await send(.request(senderId: peer, targetId: serverPeer, documentId: target, data: fromNothing), outbound)
            var count: UInt64 = 0
            while !Task.isCancelled {
                count += 1
                let size = count.isMultiple(of: 10) ? 8 << 20 : 200 << 10
                try await send(.ephemeral(senderId: peer, targetId: serverPeer, count: count, sessionId: "shout",
                                          documentId: target, data: [UInt8](repeating: 0x5A, count: size)), outbound)
                try await Task.sleep(for: .milliseconds(50))
            }
            try await reading
        }
    }

    /// A follower of a document that never reads what the server sends (nor its pings).
    private func followWithoutReading(as peer: PeerId) async throws {
        let fromNothing = Array(Document().generateSyncMessage(state: SyncState())!)
        try await connected(as: peer) { _, outbound in
            try await send(.request(senderId: peer, targetId: serverPeer, documentId: targets[0], data: fromNothing), outbound)
            try await Task.sleep(for: .seconds(3600))
        }
    }

    /// 6 MiB of a message in fragments, never finished.
    private func leaveMessageUnfinished(as peer: PeerId) async throws {
        try await connected(as: peer) { inbound, outbound in
            async let reading: Void = drain(inbound)
            try await outbound.withBinaryMessageWriter { writer in
                for _ in 0..<96 { try await writer(ByteBuffer(repeating: 0xAB, count: 65536)) }
                try await Task.sleep(for: .seconds(3600))
            }
            try await reading
        }
    }

    /// A join under a new storage id, a request, a reply, and gone.
    private func joinWithNewStorageId(as peer: PeerId) async throws {
        let fromNothing = Array(Document().generateSyncMessage(state: SyncState())!)
        let target = targets[Int.random(in: 0..<targets.count)]
        try await connected(as: peer, metadata: PeerMetadata(storageId: StorageId(UUID().uuidString))) { inbound, outbound in
            try await send(.request(senderId: peer, targetId: serverPeer, documentId: target, data: fromNothing), outbound)
            for try await _ in inbound.messages(maxSize: 64 << 20) { break }
        }
    }

    /// `count` changes of 256 KiB (of bytes that do not compress), each
    /// depending on a change that is not sent; each by a new actor, so no two are alike.
    static func changesAheadOfHistory(_ count: Int) throws -> [[UInt8]] {
        try (0..<count).map { _ in
            let source = Document()
            try source.put(obj: .ROOT, key: "first", value: .Int(1))
            _ = source.encodeNewChanges()
            try source.put(obj: .ROOT, key: "second", value: .Bytes(incompressible))
            return [UInt8](source.encodeNewChanges())
        }
    }

    /// 256 KiB of random bytes, made once.
    private static let incompressible = Data((0..<(256 << 10)).map { _ in UInt8.random(in: 0...255) })
}
