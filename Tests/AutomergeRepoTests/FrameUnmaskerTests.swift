import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing
@testable import AutomergeRepo

/// The server unmasks a client's frames itself, eight bytes at a time;
/// the result must be exactly RFC 6455's byte-by-byte unmasking.
@Suite("sync server: unmasking client frames")
struct FrameUnmaskerTests {
    @Test("every length and key unmasks as RFC 6455 says, byte for byte")
    func unmasksAsTheRFCSays() {
        var generator = SystemRandomNumberGenerator()
        let lengths = Array(0...40) + [63, 64, 65, 4095, 65_543]
        for length in lengths {
            let key = WebSocketMaskingKey.random(using: &generator)
            let payload = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var masked = ByteBuffer(bytes: payload)
            masked.webSocketMask(key)
            // Read from the middle of a larger buffer, as the decoder's slices are.
            var framed = ByteBuffer(bytes: [1, 2, 3])
            framed.writeImmutableBuffer(masked)
            framed.moveReaderIndex(forwardBy: 3)
            let unmasked = FrameUnmasker.unmasked(framed, key: key, allocator: ByteBufferAllocator())
            #expect(Array(unmasked.readableBytesView) == payload, "length \(length), key \(Array(key))")
        }
    }

    @Test("a masked frame leaves the handler unmasked and without its key")
    func clearsTheKey() throws {
        let channel = EmbeddedChannel(handler: FrameUnmasker())
        let key: WebSocketMaskingKey = [0x12, 0x34, 0x56, 0x78]
        var data = ByteBuffer(bytes: Array("a message of some length".utf8))
        data.webSocketMask(key)
        try channel.writeInbound(WebSocketFrame(fin: true, opcode: .binary, maskKey: key, data: data))
        let frame = try #require(try channel.readInbound(as: WebSocketFrame.self))
        #expect(frame.maskKey == nil)
        #expect(String(buffer: frame.data) == "a message of some length")
        #expect(frame.fin && frame.opcode == .binary)
        _ = try channel.finish()
    }

    @Test("a frame with extension data is passed on as it came, for WSCore to unmask")
    func leavesExtensionFramesAlone() throws {
        let channel = EmbeddedChannel(handler: FrameUnmasker())
        let key: WebSocketMaskingKey = [1, 2, 3, 4]
        let frame = WebSocketFrame(fin: true, opcode: .binary, maskKey: key, data: ByteBuffer(bytes: [9, 9, 9]),
                                   extensionData: ByteBuffer(bytes: [7]))
        try channel.writeInbound(frame)
        let passed = try #require(try channel.readInbound(as: WebSocketFrame.self))
        #expect(passed.maskKey == key)
        #expect(passed.unmaskedData == frame.unmaskedData)
        _ = try channel.finish()
    }
}
