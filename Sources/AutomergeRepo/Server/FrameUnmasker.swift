import NIOCore
import NIOWebSocket

/// Unmasks each WebSocket frame a client sends as it leaves the frame
/// decoder, eight bytes at a time, into a buffer of its own, and clears
/// its masking key, so that WSCore passes the data on as it is.
///
/// Every frame from a client is masked (RFC 6455, 5.3). WSCore unmasks a
/// frame's data when the frame reaches the connection's task, a byte at a
/// time and after a copy on write: for a large frame, milliseconds of a
/// cooperative thread that other connections' tasks wait for. Here the
/// copy and the unmasking are one pass, on the connection's event loop.
/// Frames with extension data (no extension is negotiated) are left as
/// they are.
final class FrameUnmasker: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    /// Puts an unmasker right after `channel`'s frame decoder. Frames
    /// read before then are unmasked by WSCore, as are all of them if the
    /// channel closed first.
    static func install(on channel: any Channel) async {
        try? await channel.eventLoop.submit {
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.context(handlerType: ByteToMessageHandler<WebSocketFrameDecoder>.self)
            try pipeline.addHandler(FrameUnmasker(), position: .after(decoder.handler))
        }.get()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var frame = unwrapInboundIn(data)
        if let key = frame.maskKey, frame.extensionData == nil {
            frame.data = Self.unmasked(frame.data, key: key, allocator: context.channel.allocator)
            frame.maskKey = nil
        }
        context.fireChannelRead(wrapInboundOut(frame))
    }

    /// `data` XORed with `key` repeated, starting at the key's first byte.
    static func unmasked(_ data: ByteBuffer, key: WebSocketMaskingKey, allocator: ByteBufferAllocator) -> ByteBuffer {
        let count = data.readableBytes
        var result = allocator.buffer(capacity: count)
        guard count > 0 else { return result }
        let keyBytes = [key[0], key[1], key[2], key[3]]
        // The key twice over, read as a word the same way the data's words are read.
        let wordKey = (keyBytes + keyBytes).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        result.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { target in
            data.withUnsafeReadableBytes { source in
                let words = count / 8
                for word in 0..<words {
                    let value = source.loadUnaligned(fromByteOffset: word * 8, as: UInt64.self) ^ wordKey
                    target.storeBytes(of: value, toByteOffset: word * 8, as: UInt64.self)
                }
                for index in (words * 8)..<count {
                    target[index] = source[index] ^ keyBytes[index % 4]
                }
            }
            return count
        }
        return result
    }
}
