import AutomergeRepoProtocol
import HummingbirdWebSocket
import NIOCore

/// Joins a peer's WebSocket frames into whole messages, refusing one
/// larger than the server allows before it is whole, and dropping an
/// ephemeral message larger than the server relays as soon as its first
/// bytes say what it is, without gathering or decoding it.
struct MessageAssembler {
    /// A message past the size limit.
    struct TooLarge: Error, CustomStringConvertible {
        let limit: Int
        var description: String { "a message larger than \(limit) bytes" }
    }

    /// What a frame completed.
    enum Completed {
        case message(ConnectionSession.InboundMessage)
        /// An ephemeral message past ``maximumEphemeralSize``, of `size` bytes, dropped.
        case droppedEphemeral(size: Int)
    }

    let maximumSize: Int
    let maximumEphemeralSize: Int
    private var parts: [UInt8] = []
    private var kind: ConnectionSession.InboundMessage?
    /// The bytes of the message so far, gathered or dropped.
    private var size = 0
    /// Whether the message was seen to be an ephemeral one too large to relay.
    private var isDropping = false
    /// Whether its first bytes were looked at for that.
    private var isPeeked = false

    init(maximumSize: Int, maximumEphemeralSize: Int = .max) {
        self.maximumSize = maximumSize
        self.maximumEphemeralSize = maximumEphemeralSize
    }

    /// Adds `frame`; returns what it completes, if anything.
    mutating func add(_ frame: WebSocketDataFrame) throws(TooLarge) -> Completed? {
        try add(frame.opcode, frame.data, fin: frame.fin)
    }

    /// Adds a frame of `opcode` carrying `data`; returns what it completes, if anything.
    mutating func add(_ opcode: WebSocketDataFrame.Opcode, _ data: ByteBuffer, fin: Bool) throws(TooLarge) -> Completed? {
        switch opcode {
        case .binary: kind = .binary([])
        case .text: kind = .text
        case .continuation: break
        }
        size += data.readableBytes
        guard size <= maximumSize else { throw TooLarge(limit: maximumSize) }
        if case .binary = kind, !isDropping {
            if !isPeeked, size > maximumEphemeralSize {
                isPeeked = true
                isDropping = Self.isEphemeral(gathered: parts, next: data)
                if isDropping { parts = [] }
            }
            if !isDropping { data.withUnsafeReadableBytes { parts.append(contentsOf: $0) } }
        }
        guard fin else { return nil }
        defer { reset() }
        if isDropping { return .droppedEphemeral(size: size) }
        switch kind {
        case .binary: return .message(.binary(parts))
        case .text, nil: return .message(.text)
        }
    }

    private mutating func reset() {
        parts = []
        kind = nil
        size = 0
        isDropping = false
        isPeeked = false
    }

    /// Whether the message's first bytes (those gathered, else the next frame's) show an ephemeral message.
    private static func isEphemeral(gathered: [UInt8], next: ByteBuffer) -> Bool {
        if !gathered.isEmpty { return gathered.withUnsafeBytes { RepoMessage.isEphemeral(prefix: $0) } }
        return next.withUnsafeReadableBytes { RepoMessage.isEphemeral(prefix: $0) }
    }
}
