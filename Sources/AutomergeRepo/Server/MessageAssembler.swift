import HummingbirdWebSocket
import NIOCore

/// Joins a peer's WebSocket frames into whole messages, refusing one
/// larger than the server allows before it is whole.
struct MessageAssembler {
    /// A message past the size limit.
    struct TooLarge: Error, CustomStringConvertible {
        let limit: Int
        var description: String { "a message larger than \(limit) bytes" }
    }

    let maximumSize: Int
    private var parts: [UInt8] = []
    private var kind: ConnectionSession.InboundMessage?

    init(maximumSize: Int) {
        self.maximumSize = maximumSize
    }

    /// Adds `frame`; returns the message it completes, if any.
    mutating func add(_ frame: WebSocketDataFrame) throws(TooLarge) -> ConnectionSession.InboundMessage? {
        switch frame.opcode {
        case .binary: kind = .binary([])
        case .text: kind = .text
        case .continuation: break
        }
        guard parts.count + frame.data.readableBytes <= maximumSize else { throw TooLarge(limit: maximumSize) }
        if case .binary = kind { frame.data.withUnsafeReadableBytes { parts.append(contentsOf: $0) } }
        guard frame.fin else { return nil }
        defer {
            parts = []
            kind = nil
        }
        switch kind {
        case .binary: return .binary(parts)
        case .text, nil: return .text
        }
    }
}
