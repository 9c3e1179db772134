import AutomergeTestSupport
import Foundation

/// A WebSocket peer on a bare TCP socket, for what a WebSocket library
/// does not let a test do: never answer pings, never read, send a close
/// frame of its choosing and see exactly what comes back. Every call that
/// can block runs off the cooperative pool (``blockingWork(_:)``), so that
/// the server under test keeps its threads.
final class RawSocketPeer: Sendable {
    private let socket: LoopbackSocket

    /// Connects to 127.0.0.1:`port` and completes the WebSocket upgrade. A
    /// small receive window (the default) stops the server's writes soon
    /// when the peer does not read.
    static func open(port: Int, receiveWindow: Int32 = 4096) async throws -> RawSocketPeer {
        try await blockingWork { try RawSocketPeer(port: port, receiveWindow: receiveWindow) }
    }

    private init(port: Int, receiveWindow: Int32) throws {
        socket = try LoopbackSocket.connect(port: port, receiveWindow: receiveWindow)
        try socket.send(Array("""
            GET / HTTP/1.1\r
            Host: 127.0.0.1:\(port)\r
            Upgrade: websocket\r
            Connection: Upgrade\r
            Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r
            Sec-WebSocket-Version: 13\r
            \r

            """.utf8))
        var response = [UInt8]()
        while !response.ends(with: Array("\r\n\r\n".utf8)) {
            guard case .bytes(let byte) = socket.receive(maximum: 1, timeout: .seconds(5)) else {
                throw RawSocketError("no upgrade response")
            }
            response += byte
        }
        guard String(decoding: response, as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
            throw RawSocketError("upgrade refused: \(String(decoding: response, as: UTF8.self))")
        }
    }

    /// Sends `payload` as one masked binary frame, as a client must.
    func sendBinaryFrame(_ payload: [UInt8]) async throws {
        try await sendBinaryFrames([payload])
    }

    /// Sends each payload as a masked binary frame, in one write: the server
    /// may answer, and close, before a second write would go out.
    func sendBinaryFrames(_ payloads: [[UInt8]]) async throws {
        try await send(payloads.map { WebSocketWireFrame(opcode: WebSocketWireFrame.binary, payload: $0) })
    }

    /// Sends `frames`, masked, in one write.
    func send(_ frames: [WebSocketWireFrame]) async throws {
        try await send(encoded: frames.flatMap { $0.encoded(masked: true) })
    }

    /// Sends bytes already framed and masked (frames encoded once for many peers).
    func send(encoded bytes: [UInt8]) async throws {
        try await blockingWork { try self.socket.send(bytes) }
    }

    /// The frames the server sends (answering nothing, pings included) until
    /// it closes the connection, and whether it did before `timeout`.
    func framesUntilServerCloses(timeout: Duration) async throws -> (frames: [WebSocketWireFrame], closed: Bool) {
        try await blockingWork {
            var buffered = [UInt8]()
            var frames = [WebSocketWireFrame]()
            let closed = self.readUntilServerCloses(timeout: timeout) { bytes in
                buffered += bytes
                while let (frame, length) = WebSocketWireFrame.decode(buffered[...]) {
                    frames.append(frame)
                    buffered.removeFirst(length)
                }
            }
            return (frames, closed)
        }
    }

    /// Reads as a slow but honest peer does: at most `bytesPerSecond`,
    /// answering each ping with a pong as it reads it, until `done` holds
    /// for the whole binary messages read (fragments joined), the server
    /// closes the connection, or `timeout` passes. Returns the messages and
    /// whether the server closed.
    func readSlowly(bytesPerSecond: Int, timeout: Duration, until done: @escaping @Sendable ([[UInt8]]) -> Bool)
        async throws -> (messages: [[UInt8]], closed: Bool)
    {
        try await blockingWork {
            let slice = max(1, bytesPerSecond / 50)  // a read every 20 ms
            var buffered = [UInt8]()
            var messages = [[UInt8]]()
            var partial = [UInt8]()
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline, !done(messages) {
                switch self.socket.receive(maximum: slice, timeout: .milliseconds(100)) {
                case nil: continue
                case .end, .reset: return (messages, true)
                case .bytes(let bytes): buffered += bytes
                }
                var offset = 0
                while let (frame, length) = WebSocketWireFrame.decode(buffered[offset...]) {
                    offset += length
                    switch frame.opcode {
                    case 0x9: try self.socket.send(WebSocketWireFrame(opcode: 0xA, payload: frame.payload).encoded(masked: true))
                    case WebSocketWireFrame.close: return (messages, true)
                    case 0x0, WebSocketWireFrame.binary:
                        partial += frame.payload
                        if frame.fin {
                            messages.append(partial)
                            partial = []
                        }
                    default: continue
                    }
                }
                buffered.removeFirst(offset)
                Thread.sleep(forTimeInterval: 0.02)
            }
            return (messages, false)
        }
    }

    /// Reads and discards everything (answering nothing, pings included)
    /// until the server closes the connection; false if it is still open after `timeout`.
    func waitForServerToClose(timeout: Duration) async throws -> Bool {
        try await blockingWork { self.readUntilServerCloses(timeout: timeout) { _ in } }
    }

    /// Reads until the connection ends or `timeout` passes, passing every byte to `take`; true when it ended.
    private func readUntilServerCloses(timeout: Duration, _ take: ([UInt8]) -> Void) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            switch socket.receive(maximum: 65536, timeout: .milliseconds(100)) {
            case nil: continue
            case .end, .reset: return true
            case .bytes(let bytes): take(bytes)
            }
        }
        return false
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
