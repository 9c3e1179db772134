import Foundation
import AutomergeRepoProtocol

/// A TCP relay on loopback between one WebSocket client and a server, that
/// records the frames each side sends and how each side ended its half of
/// the connection, in the order the relay saw them: what neither a
/// WebSocket library nor the server's hooks show (a close frame's code, a
/// FIN against a reset, which came first). It can hold back the server's
/// close frame, to see whether the client waits for it.
///
/// Each direction is relayed on a thread of its own, never on the
/// cooperative pool; everything stops after `lifetime` at the latest.
final class WireTap: @unchecked Sendable {
    /// What the relay saw.
    enum Event: Equatable, Sendable {
        /// A frame the client sent, recorded as it is relayed to the server.
        case fromClient(WebSocketWireFrame)
        /// A frame the server sent, recorded as it is relayed to the client
        /// (after the hold, for a close frame).
        case fromServer(WebSocketWireFrame)
        /// The client ended the connection: with a FIN, or with a reset.
        case clientEnded(reset: Bool)
        /// The server ended the connection: with a FIN, or with a reset.
        case serverEnded(reset: Bool)
    }

    /// What the relay does with the server's close frame.
    enum ServerClose: Sendable {
        /// Relays it after holding it back for the time given.
        case relay(after: Duration)
        /// Never relays it, nor anything after it, nor the server's end of the connection.
        case withhold
    }

    /// The port clients connect to.
    let port: Int
    private let recorded = Recorded()

    /// Listens on a free port and relays the first connection to 127.0.0.1:`upstream`.
    init(upstream: Int, serverClose: ServerClose = .relay(after: .zero), lifetime: Duration = .seconds(60)) throws {
        let (listener, port) = try LoopbackSocket.listen()
        self.port = port
        let deadline = ContinuousClock.now + lifetime
        Thread { [recorded] in
            guard let client = try? listener.accept(timeout: lifetime),
                  let server = try? LoopbackSocket.connect(port: upstream) else { return }
            let record: @Sendable (Event) -> Void = { recorded.append($0) }
            Thread {
                Self.relay(from: client, to: server, until: deadline, onFrame: { record(.fromClient($0)) },
                           onEnd: { record(.clientEnded(reset: $0)) })
            }.start()
            Thread {
                Self.relay(from: server, to: client, until: deadline, holdingClose: serverClose,
                           onFrame: { record(.fromServer($0)) }, onEnd: { record(.serverEnded(reset: $0)) })
            }.start()
        }.start()
    }

    /// The WebSocket URL of the relay.
    var url: String { "ws://127.0.0.1:\(port)" }

    /// What the relay has seen so far.
    var events: [Event] { recorded.events }

    /// What the relay has seen once the client ended the connection, or when `timeout` passed.
    func eventsOnceClientEnded(timeout: Duration = .seconds(20)) async -> [Event] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, !events.contains(where: \.isClientEnd) {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return events
    }

    /// Relays bytes from `source` to `sink` until `source` ends, reporting
    /// each whole frame past the HTTP upgrade head as it relays it.
    private static func relay(from source: LoopbackSocket, to sink: LoopbackSocket, until deadline: ContinuousClock.Instant,
                              holdingClose close: ServerClose = .relay(after: .zero),
                              onFrame: (WebSocketWireFrame) -> Void, onEnd: (Bool) -> Void)
    {
        var pending = [UInt8]()
        var inHead = true
        var withholding = false
        while ContinuousClock.now < deadline {
            guard let received = source.receive(maximum: 65536, timeout: .milliseconds(50)) else { continue }
            guard case .bytes(let bytes) = received else {
                onEnd(received == .reset)
                if !withholding { sink.shutdownWrite() }
                return
            }
            pending += bytes
            if inHead, let end = pending.headEnd {
                try? sink.send(Array(pending[..<end]))
                pending.removeFirst(end)
                inHead = false
            }
            while !inHead, !withholding, let (frame, length) = WebSocketWireFrame.decode(pending[...]) {
                let wire = Array(pending.prefix(length))
                pending.removeFirst(length)
                if frame.opcode == WebSocketWireFrame.close {
                    switch close {
                    case .withhold:
                        withholding = true
                        continue
                    case .relay(let hold): Thread.sleep(forTimeInterval: hold.timeInterval)
                    }
                }
                onFrame(frame)  // before the bytes go: the other side cannot have reacted to them yet
                try? sink.send(wire)
            }
            if withholding { pending = [] }
        }
    }
}

extension WireTap {
    /// The events, appended from the relay threads (unchecked: every access holds the lock).
    private final class Recorded: @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [Event] = []
        func append(_ event: Event) { lock.withLock { recorded.append(event) } }
        var events: [Event] { lock.withLock { recorded } }
    }
}

extension WireTap.Event {
    /// Whether this is the client's end of the connection.
    var isClientEnd: Bool {
        if case .clientEnded = self { return true }
        return false
    }

    /// The event in a few words, for failure messages: who, and the frame's
    /// repo message type or opcode and close code.
    var summary: String {
        switch self {
        case .fromClient(let frame): return "client " + frame.summary
        case .fromServer(let frame): return "server " + frame.summary
        case .clientEnded(let reset): return reset ? "client reset" : "client FIN"
        case .serverEnded(let reset): return reset ? "server reset" : "server FIN"
        }
    }

    /// Whether this is the server's close frame, relayed.
    var isServerClose: Bool {
        if case .fromServer(let frame) = self { return frame.opcode == WebSocketWireFrame.close }
        return false
    }
}

extension WebSocketWireFrame {
    fileprivate var summary: String {
        if let closeCode { return "close \(closeCode)" }
        guard opcode == Self.binary, let message = try? RepoMessage(decoding: payload) else { return "opcode \(opcode)" }
        return message.type
    }
}

extension Array where Element == UInt8 {
    /// Where the bytes after an HTTP head (`\r\n\r\n`) start, if the head is whole.
    fileprivate var headEnd: Int? {
        let marker = Array("\r\n\r\n".utf8)
        guard count >= marker.count else { return nil }
        return (0...(count - marker.count)).first { Array(self[$0..<($0 + marker.count)]) == marker }.map { $0 + marker.count }
    }
}

extension Duration {
    fileprivate var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
