import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking TCP socket on 127.0.0.1, for the tests' raw WebSocket peers
/// and relays. Every call may block: callers run them off the cooperative
/// pool (``blockingWork(_:)`` or a thread of their own).
final class LoopbackSocket: @unchecked Sendable {
    let descriptor: Int32

    /// What one read found.
    enum Received: Equatable {
        case bytes([UInt8])
        /// The other side closed its half of the connection (a FIN).
        case end
        /// The other side reset the connection (an RST).
        case reset
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    private static func newSocket() throws -> Int32 {
        #if canImport(Glibc)
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw RawSocketError("socket() failed") }
        return descriptor
    }

    private static func loopbackAddress(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// A socket connected to 127.0.0.1:`port`, its receive buffer set to
    /// `receiveWindow` bytes when given (before connecting, so that it holds).
    static func connect(port: Int, receiveWindow: Int32? = nil) throws -> LoopbackSocket {
        let socket = LoopbackSocket(descriptor: try newSocket())
        if var window = receiveWindow {
            setsockopt(socket.descriptor, SOL_SOCKET, SO_RCVBUF, &window, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = loopbackAddress(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Glibc)
                Glibc.connect(socket.descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #else
                Darwin.connect(socket.descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #endif
            }
        }
        guard connected == 0 else { throw RawSocketError("connect() failed") }
        return socket
    }

    /// A socket listening on a free port of 127.0.0.1, and that port.
    static func listen() throws -> (LoopbackSocket, port: Int) {
        let socket = LoopbackSocket(descriptor: try newSocket())
        var address = loopbackAddress(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket.descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #if canImport(Glibc)
        let listening = Glibc.listen(socket.descriptor, 4)
        #else
        let listening = Darwin.listen(socket.descriptor, 4)
        #endif
        guard bound == 0, listening == 0 else { throw RawSocketError("bind() or listen() failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket.descriptor, $0, &length) }
        }
        guard named == 0 else { throw RawSocketError("getsockname() failed") }
        return (socket, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// The next connection, waiting at most `timeout`.
    func accept(timeout: Duration) throws -> LoopbackSocket {
        guard isReadable(within: timeout) else { throw RawSocketError("no connection in time") }
        #if canImport(Glibc)
        let accepted = Glibc.accept(descriptor, nil, nil)
        #else
        let accepted = Darwin.accept(descriptor, nil, nil)
        #endif
        guard accepted >= 0 else { throw RawSocketError("accept() failed") }
        return LoopbackSocket(descriptor: accepted)
    }

    /// Writes all of `bytes`.
    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { buffer in
                #if canImport(Glibc)
                Glibc.send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
                #else
                Darwin.send(descriptor, buffer.baseAddress, buffer.count, 0)
                #endif
            }
            guard count > 0 else { throw RawSocketError("send() failed") }
            sent += count
        }
    }

    /// Up to `maximum` bytes, the connection's end or its reset; nil when nothing came within `timeout`.
    func receive(maximum: Int, timeout: Duration) -> Received? {
        guard isReadable(within: timeout) else { return nil }
        var buffer = [UInt8](repeating: 0, count: maximum)
        let count = recv(descriptor, &buffer, maximum, 0)
        if count > 0 { return .bytes(Array(buffer.prefix(count))) }
        return count == 0 ? .end : .reset
    }

    /// Sends a FIN: the other side reads the end; this side can still read.
    func shutdownWrite() {
        shutdown(descriptor, Int32(SHUT_WR))
    }

    private func isReadable(within timeout: Duration) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return poll(&poller, 1, milliseconds) > 0
    }

    deinit { close(descriptor) }
}

struct RawSocketError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
