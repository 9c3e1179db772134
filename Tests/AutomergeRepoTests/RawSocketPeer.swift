import AutomergeTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A WebSocket peer on a bare TCP socket, for what a WebSocket library
/// does not let a test do: never answer pings, never read. Every call that
/// can block runs off the cooperative pool (``blockingWork(_:)``), so that
/// the server under test keeps its threads.
final class RawSocketPeer: Sendable {
    private let socket: Int32

    /// Connects to 127.0.0.1:`port` and completes the WebSocket upgrade.
    static func open(port: Int) async throws -> RawSocketPeer {
        try await blockingWork { try RawSocketPeer(port: port) }
    }

    private init(port: Int) throws {
        #if canImport(Glibc)
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard socket >= 0 else { throw RawSocketError("socket() failed") }
        // A small receive window, so that a peer that does not read stops the server's writes soon.
        var window: Int32 = 4096
        setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &window, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw RawSocketError("connect() failed") }
        try send(Array("""
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
            guard let byte = try receive(maximum: 1, timeout: .seconds(5)).first else {
                throw RawSocketError("no upgrade response")
            }
            response.append(byte)
        }
        guard String(decoding: response, as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
            throw RawSocketError("upgrade refused: \(String(decoding: response, as: UTF8.self))")
        }
    }

    deinit { close(socket) }

    /// Sends `payload` as one masked binary frame, as a client must.
    func sendBinaryFrame(_ payload: [UInt8]) async throws {
        try await sendBinaryFrames([payload])
    }

    /// Sends each payload as a masked binary frame, in one write: the server
    /// may answer, and close, before a second write would go out.
    func sendBinaryFrames(_ payloads: [[UInt8]]) async throws {
        let bytes = payloads.flatMap(Self.maskedBinaryFrame)
        try await blockingWork { try self.send(bytes) }
    }

    private static func maskedBinaryFrame(_ payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [0x82]
        switch payload.count {
        case ..<126: frame.append(0x80 | UInt8(payload.count))
        case ..<65536: frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: frame += [0x80 | 127] + (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    private func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { buffer in
                #if canImport(Glibc)
                Glibc.send(socket, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
                #else
                Darwin.send(socket, buffer.baseAddress, buffer.count, 0)
                #endif
            }
            guard count > 0 else { throw RawSocketError("send() failed") }
            sent += count
        }
    }

    /// Up to `maximum` bytes, waiting at most `timeout`; empty once the server has closed the connection.
    private func receive(maximum: Int, timeout: Duration) throws -> [UInt8] {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&descriptor, 1, milliseconds) > 0 else { throw RawSocketError("nothing to read in time") }
        var buffer = [UInt8](repeating: 0, count: maximum)
        let count = recv(socket, &buffer, maximum, 0)
        guard count >= 0 else { return [] }  // reset by the server: closed too
        return Array(buffer.prefix(count))
    }

    /// Reads and discards everything (answering nothing, pings included)
    /// until the server closes the connection; false if it is still open after `timeout`.
    func waitForServerToClose(timeout: Duration) async throws -> Bool {
        try await blockingWork {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                guard let bytes = try? self.receive(maximum: 65536, timeout: .milliseconds(100)) else { continue }
                if bytes.isEmpty { return true }
            }
            return false
        }
    }
}

struct RawSocketError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
