/// One WebSocket frame as it is on the wire (RFC 6455 §5.2), for the tests'
/// raw peers and relays: what a WebSocket library does not let a test write or see.
struct WebSocketWireFrame: Equatable, Sendable {
    static let binary: UInt8 = 0x2
    static let close: UInt8 = 0x8

    var fin = true
    var opcode: UInt8
    /// The payload, unmasked.
    var payload: [UInt8]

    /// A close frame with `code` and no reason.
    static func close(code: UInt16) -> WebSocketWireFrame {
        WebSocketWireFrame(opcode: close, payload: [UInt8(code >> 8), UInt8(code & 0xFF)])
    }

    /// The close code of a close frame that has one.
    var closeCode: UInt16? {
        guard opcode == Self.close, payload.count >= 2 else { return nil }
        return UInt16(payload[0]) << 8 | UInt16(payload[1])
    }

    /// The frame's bytes, masked as a client must send them when `masked`.
    func encoded(masked: Bool) -> [UInt8] {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        switch payload.count {
        case ..<126: frame.append(maskBit | UInt8(payload.count))
        case ..<65536: frame += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: frame += [maskBit | 127] + (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        guard masked else { return frame + payload }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        return frame + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    /// The first whole frame at the start of `bytes` and its length in
    /// bytes; nil while the frame is incomplete.
    static func decode(_ bytes: ArraySlice<UInt8>) -> (frame: WebSocketWireFrame, length: Int)? {
        let start = bytes.startIndex
        guard bytes.count >= 2 else { return nil }
        var offset = 2
        var length = Int(bytes[start + 1] & 0x7F)
        let extra = length == 126 ? 2 : length == 127 ? 8 : 0
        if extra > 0 {
            guard bytes.count >= offset + extra else { return nil }
            length = (0..<extra).reduce(0) { $0 << 8 | Int(bytes[start + offset + $1]) }
            offset += extra
        }
        let masked = bytes[start + 1] & 0x80 != 0
        let mask = masked ? Array(bytes.dropFirst(offset).prefix(4)) : []
        offset += mask.count
        guard (!masked || mask.count == 4), bytes.count >= offset + length else { return nil }
        var payload = Array(bytes.dropFirst(offset).prefix(length))
        if masked { payload = payload.enumerated().map { $0.element ^ mask[$0.offset % 4] } }
        let frame = WebSocketWireFrame(fin: bytes[start] & 0x80 != 0, opcode: bytes[start] & 0x0F, payload: payload)
        return (frame, offset + length)
    }
}
