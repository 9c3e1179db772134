#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A ``ReplicationTransport`` over a byte stream: two file descriptors, one
/// read and one written (the two ends of pipes, a child process's standard
/// output and input, or one connected socket for both). Each frame goes as
/// its length (unsigned LEB128, at most ``ReplicationFrame/maximumLength``)
/// and its bytes (see ``ReplicationFrame/encoded()``).
///
/// A thread reads the input as it comes, so the peer's writes never wait on
/// this side's work; buffered frames cost memory only as the peer sends them.
/// Writing to a peer that has gone fails with ``ReplicationError/connectionLost(_:)``
/// (the process ignores SIGPIPE once a transport is made, so that it is an
/// error, not a signal that kills it).
public final class ByteStreamTransport: ReplicationTransport, @unchecked Sendable {
    // @unchecked: `outputClosed` and the writes to `output` happen only under `writeLock`; `frames` locks itself.
    private let output: Int32
    private let frames = AsyncQueue<ReplicationFrame>()
    private let writeLock = NSLock()
    /// Where writes run: a peer that does not read blocks them, never a cooperative thread.
    private let writes = BlockingQueue(label: "automerge.replication.write")
    private var outputClosed = false

    /// A transport reading frames from `input` and writing them to
    /// `output`. ``close()`` closes `output`; `input` is read until its end
    /// and left open.
    public init(input: Int32, output: Int32) {
        signal(SIGPIPE, SIG_IGN)
        self.output = output
        let frames = self.frames
        let reader = Thread { FrameStreamReader(input: input, frames: frames).run() }
        reader.name = "replication-reader"
        reader.start()
    }

    /// The process's standard input and output.
    public static func standardIO() -> ByteStreamTransport { ByteStreamTransport(input: 0, output: 1) }

    public func send(_ frame: ReplicationFrame) async throws {
        guard frame.encodedLength <= ReplicationFrame.maximumLength else {
            throw ReplicationError.frameTooLarge(frame.encodedLength)
        }
        let bytes = frame.streamEncoded()
        try await writes.run { [self] in try writeWhole(bytes) }
    }

    /// Writes `bytes` whole, blocking while the pipe is full.
    private func writeWhole(_ bytes: Data) throws {
        try writeLock.withLock {
            guard !outputClosed else { throw ReplicationError.connectionLost("the transport is closed") }
            try bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = write(output, raw.baseAddress! + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw ReplicationError.connectionLost("writing failed: \(String(cString: strerror(errno)))")
                    }
                    offset += written
                }
            }
        }
    }

    public func receive() async throws -> ReplicationFrame? { try await frames.next() }

    /// Closes the output once the writes before have been made.
    public func close() async {
        _ = try? await writes.run { [self] in
            writeLock.withLock {
                guard !outputClosed else { return }
                outputClosed = true
                _ = closeDescriptor(output)
            }
        }
    }
}

private func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }

/// Reads length-prefixed frames from a descriptor until its end, on its own thread.
private struct FrameStreamReader {
    let input: Int32
    let frames: AsyncQueue<ReplicationFrame>

    func run() {
        var buffer = [UInt8]()
        var start = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                frames.finish(throwing: ReplicationError.connectionLost("reading failed: \(String(cString: strerror(errno)))"))
                return
            }
            if count == 0 {
                frames.finish(throwing: start == buffer.count ? nil
                              : ReplicationError.connectionLost("the stream ended inside a frame"))
                return
            }
            buffer.append(contentsOf: chunk[0..<count])
            do {
                while let frame = try Self.frame(in: buffer, from: &start) { frames.push(frame) }
            } catch {
                frames.finish(throwing: error)
                return
            }
            if start > 0, start >= buffer.count / 2 {
                buffer.removeFirst(start)
                start = 0
            }
        }
    }

    /// The whole frame at `start`, moving `start` past it; nil when it has not all arrived.
    static func frame(in buffer: [UInt8], from start: inout Int) throws -> ReplicationFrame? {
        var length = 0
        var shift = 0
        var position = start
        while true {
            guard position < buffer.count else { return nil }
            let byte = buffer[position]
            position += 1
            length |= Int(byte & 0x7F) << shift
            guard length <= ReplicationFrame.maximumLength else { throw ReplicationError.frameTooLarge(length) }
            if byte & 0x80 == 0 { break }
            shift += 7
            guard shift < 35 else { throw ReplicationError.frameTooLarge(length) }
        }
        guard buffer.count - position >= length else { return nil }
        do {
            let frame = try ReplicationFrame(decoding: Data(buffer[position..<position + length]))
            start = position + length
            return frame
        } catch {
            throw ReplicationError.malformedFrame(error)
        }
    }
}
