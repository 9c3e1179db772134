import Foundation

/// Why bytes are not a replication frame.
public struct ReplicationFrameError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// The bytes of a ``ReplicationFrame``: its serial (unsigned LEB128), a tag
/// byte naming the message, then the message's fields: numbers as
/// unsigned LEB128, strings (UTF-8) and byte strings as their length then
/// their bytes, flags as one byte. A byte stream carries each frame after
/// its length. Decoding checks every length against the bytes there
/// before it allocates, and takes nothing else (see docs/decisions.md).
extension ReplicationFrame {
    /// The longest frame a stream carries: an attachment's bytes travel in one frame.
    public static let maximumLength = 512 << 20

    private enum Tag: UInt8 {
        case hello = 1, sync, idle, offersDone, blobRequest, blob, blobUnavailable, bye, failure
    }

    /// The frame's bytes.
    public func encoded() -> Data {
        var writer = FrameWriter()
        writer.number(serial)
        switch message {
        case .hello(let hello):
            writer.tag(Tag.hello.rawValue)
            writer.number(hello.version)
            writer.string(hello.replicaId)
            let flags = (hello.initiatorSends ? 1 : 0) | (hello.initiatorReceives ? 2 : 0) | (hello.continuous ? 4 : 0)
                | (hello.pullDocumentIds != nil ? 8 : 0)
            writer.tag(UInt8(flags))
            if let ids = hello.pullDocumentIds {
                writer.number(UInt64(ids.count))
                ids.forEach { writer.string($0) }
            }
        case .sync(let docId, let message, let attachments, let startsExchange):
            writer.tag(Tag.sync.rawValue)
            writer.string(docId)
            writer.bytes(message)
            writer.number(UInt64(attachments.count))
            for attachment in attachments {
                writer.string(attachment.digest)
                writer.number(UInt64(attachment.length))
            }
            writer.tag(startsExchange ? 1 : 0)
        case .idle(let docId): writer.tag(Tag.idle.rawValue); writer.string(docId)
        case .offersDone: writer.tag(Tag.offersDone.rawValue)
        case .blobRequest(let digest): writer.tag(Tag.blobRequest.rawValue); writer.string(digest)
        case .blob(let digest, let data): writer.tag(Tag.blob.rawValue); writer.string(digest); writer.bytes(data)
        case .blobUnavailable(let digest): writer.tag(Tag.blobUnavailable.rawValue); writer.string(digest)
        case .bye: writer.tag(Tag.bye.rawValue)
        case .failure(let reason): writer.tag(Tag.failure.rawValue); writer.string(reason)
        }
        return writer.data
    }

    /// How many bytes ``encoded()`` makes, without making them.
    public var encodedLength: Int {
        func number(_ value: UInt64) -> Int { max(1, (64 - value.leadingZeroBitCount + 6) / 7) }
        func bytes(_ count: Int) -> Int { number(UInt64(count)) + count }
        func string(_ string: String) -> Int { bytes(string.utf8.count) }
        let body: Int
        switch message {
        case .hello(let hello):
            body = number(hello.version) + string(hello.replicaId) + 1
                + (hello.pullDocumentIds.map { ids in number(UInt64(ids.count)) + ids.map(string).reduce(0, +) } ?? 0)
        case .sync(let docId, let message, let attachments, _):
            body = string(docId) + bytes(message.count) + number(UInt64(attachments.count))
                + attachments.map { string($0.digest) + number(UInt64($0.length)) }.reduce(0, +) + 1
        case .idle(let text), .blobRequest(let text), .blobUnavailable(let text), .failure(let text): body = string(text)
        case .blob(let digest, let data): body = string(digest) + bytes(data.count)
        case .offersDone, .bye: body = 0
        }
        return number(serial) + 1 + body
    }

    /// The frame as a byte stream carries it: its length, then its bytes.
    public func streamEncoded() -> Data {
        let body = encoded()
        var writer = FrameWriter()
        writer.bytes(body)
        return writer.data
    }

    /// The frame `bytes` hold, all of them.
    public init(decoding bytes: Data) throws(ReplicationFrameError) {
        var reader = FrameReader(bytes)
        serial = try reader.number("serial")
        guard let tag = Tag(rawValue: try reader.byte("message tag")) else {
            throw ReplicationFrameError("unknown message tag \(bytes[bytes.startIndex + reader.offset - 1])")
        }
        message = try Self.message(tag, &reader)
        guard reader.isAtEnd else { throw ReplicationFrameError("\(reader.remaining) bytes after the frame's message") }
    }

    private static func message(_ tag: Tag, _ reader: inout FrameReader) throws(ReplicationFrameError) -> ReplicationMessage {
        switch tag {
        case .hello:
            let version = try reader.number("protocol version")
            let replicaId = try reader.string("replica id")
            let flags = try reader.byte("hello flags")
            guard flags & ~15 == 0 else { throw ReplicationFrameError("unknown hello flags \(flags)") }
            var ids: [String]?
            if flags & 8 != 0 {
                let count = try reader.count("document ids")
                var list: [String] = []
                for _ in 0..<count { list.append(try reader.string("document id")) }
                ids = list
            }
            return .hello(ReplicationHello(version: version, replicaId: replicaId, initiatorSends: flags & 1 != 0,
                                           initiatorReceives: flags & 2 != 0, pullDocumentIds: ids,
                                           continuous: flags & 4 != 0))
        case .sync:
            let docId = try reader.string("document id")
            let message = try reader.bytes("sync message")
            let count = try reader.count("attachments")
            var attachments: [AttachmentDigest] = []
            for _ in 0..<count {
                let digest = try reader.string("attachment digest")
                let length = try reader.number("attachment length")
                guard length <= UInt64(Int64.max) else { throw ReplicationFrameError("attachment length \(length) too large") }
                attachments.append(AttachmentDigest(digest: digest, length: Int64(length)))
            }
            let starts = try reader.byte("exchange flag")
            guard starts <= 1 else { throw ReplicationFrameError("exchange flag \(starts) is not 0 or 1") }
            return .sync(docId: docId, message: message, attachments: attachments, startsExchange: starts == 1)
        case .idle: return .idle(docId: try reader.string("document id"))
        case .offersDone: return .offersDone
        case .blobRequest: return .blobRequest(digest: try reader.string("digest"))
        case .blob: return .blob(digest: try reader.string("digest"), data: try reader.bytes("attachment bytes"))
        case .blobUnavailable: return .blobUnavailable(digest: try reader.string("digest"))
        case .bye: return .bye
        case .failure: return .failure(try reader.string("failure reason"))
        }
    }
}

private struct FrameWriter {
    var data = Data()

    mutating func tag(_ byte: UInt8) { data.append(byte) }

    mutating func number(_ value: UInt64) {
        var value = value
        repeat {
            let low = UInt8(value & 0x7F)
            value >>= 7
            data.append(value == 0 ? low : low | 0x80)
        } while value != 0
    }

    mutating func bytes(_ bytes: Data) {
        number(UInt64(bytes.count))
        data.append(bytes)
    }

    mutating func string(_ string: String) { bytes(Data(string.utf8)) }
}

/// Reads a frame's fields, each checked against the bytes left.
struct FrameReader {
    private let bytes: Data
    private(set) var offset = 0

    init(_ bytes: Data) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }
    var isAtEnd: Bool { remaining == 0 }

    mutating func byte(_ what: String) throws(ReplicationFrameError) -> UInt8 {
        guard remaining > 0 else { throw ReplicationFrameError("the frame ends before its \(what)") }
        defer { offset += 1 }
        return bytes[bytes.startIndex + offset]
    }

    /// An unsigned LEB128 of at most 64 bits, in its shortest form.
    mutating func number(_ what: String) throws(ReplicationFrameError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try self.byte(what)
            guard shift < 64, shift != 63 || byte & 0x7E == 0 else { throw ReplicationFrameError("the \(what) overflows 64 bits") }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                guard byte != 0 || shift == 0 else { throw ReplicationFrameError("the \(what) is not in its shortest form") }
                return value
            }
            shift += 7
        }
    }

    /// A count of entries, each at least one byte long, so no more than the bytes left.
    mutating func count(_ what: String) throws(ReplicationFrameError) -> Int {
        let count = try number("number of \(what)")
        guard count <= UInt64(remaining) else {
            throw ReplicationFrameError("\(count) \(what) cannot fit in the \(remaining) bytes left")
        }
        return Int(count)
    }

    mutating func bytes(_ what: String) throws(ReplicationFrameError) -> Data {
        let length = try number("length of the \(what)")
        guard length <= UInt64(remaining) else {
            throw ReplicationFrameError("the \(what) claims \(length) bytes, \(remaining) are left")
        }
        defer { offset += Int(length) }
        let start = bytes.startIndex + offset
        return bytes.subdata(in: start..<start + Int(length))
    }

    mutating func string(_ what: String) throws(ReplicationFrameError) -> String {
        let raw = try bytes(what)
        guard let string = String(validating: raw, as: UTF8.self) else {
            throw ReplicationFrameError("the \(what) is not UTF-8")
        }
        return string
    }
}
