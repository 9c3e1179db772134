import Foundation
import Testing
@testable import AutomergeStore

@Suite("Replication: frames")
struct ReplicationFrameTests {
    static let samples: [ReplicationMessage] = [
        .hello(ReplicationHello(replicaId: "0a1b", initiatorSends: true, initiatorReceives: false,
                                pullDocumentIds: ["a", "é", ""], continuous: true)),
        .hello(ReplicationHello(replicaId: "ff")),
        .sync(docId: "doc", message: Data([0x42, 1, 2, 3]),
              attachments: [AttachmentDigest(digest: "sha256-" + String(repeating: "ab", count: 32), length: 1 << 40)],
              startsExchange: true),
        .sync(docId: "d", message: Data(), attachments: [], startsExchange: false),
        .idle(docId: "doc"), .offersDone, .blobRequest(digest: "sha256-00"), .blob(digest: "x", data: Data(repeating: 9, count: 300)),
        .blobUnavailable(digest: "y"), .bye, .failure("no room"),
    ]

    @Test("every message round-trips through its bytes, and encodedLength is their count")
    func roundTrip() throws {
        for (index, message) in Self.samples.enumerated() {
            let frame = ReplicationFrame(serial: UInt64(index) * 1_000_003, message: message)
            let bytes = frame.encoded()
            #expect(try ReplicationFrame(decoding: bytes) == frame)
            #expect(frame.encodedLength == bytes.count)
        }
    }

    @Test("every truncation, and every frame with a byte appended, is a typed error")
    func truncatedAndExtended() {
        for message in Self.samples {
            let bytes = ReplicationFrame(serial: 7, message: message).encoded()
            for length in 0..<bytes.count {
                #expect(throws: ReplicationFrameError.self) { try ReplicationFrame(decoding: bytes.prefix(length)) }
            }
            #expect(throws: ReplicationFrameError.self) { try ReplicationFrame(decoding: bytes + [0]) }
        }
    }

    @Test("hostile lengths and counts fail before anything is allocated for them")
    func hostileLengths() {
        let cases: [[UInt8]] = [
            [0, 2, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],  // a document id of 2^63 bytes
            [0, 2, 1, 0x61, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F],             // 2^32 attachments in no bytes
            [0, 1, 1, 1, 0x61, 8, 0xFF, 0xFF, 0xFF, 0x7F],                 // 2^28 document ids
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],   // a serial over 64 bits
            [0x80, 0],                                                      // a serial not in its shortest form
            [0, 99],                                                        // an unknown tag
            [0, 1, 1, 1, 0x61, 0x10],                                       // unknown hello flags
            [0, 3, 2, 0xC3, 0x28],                                          // a document id that is not UTF-8
            [0, 2, 1, 0x61, 0, 0, 2],                                       // an exchange flag of 2
        ]
        for bytes in cases {
            #expect(throws: ReplicationFrameError.self, "\(bytes)") { try ReplicationFrame(decoding: Data(bytes)) }
        }
    }

    @Test("random bytes never crash the decoder", arguments: 0..<4)
    func randomBytes(seed: Int) {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try? ReplicationFrame(decoding: Data(bytes))
        }
    }

    @Test("a byte stream carries frames across arbitrary read boundaries; a stream cut inside a frame is an error")
    func byteStream() async throws {
        var pipe: [Int32] = [0, 0]
        _ = pipe.withUnsafeMutableBufferPointer { Glibc.pipe($0.baseAddress!) }
        var back: [Int32] = [0, 0]
        _ = back.withUnsafeMutableBufferPointer { Glibc.pipe($0.baseAddress!) }
        let reader = ByteStreamTransport(input: pipe[0], output: back[1])
        var bytes = Data()
        for (index, message) in Self.samples.enumerated() {
            bytes.append(ReplicationFrame(serial: UInt64(index), message: message).streamEncoded())
        }
        bytes.append(contentsOf: [40, 0, 8])  // a frame of 40 bytes, cut after 2
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + 3)
            _ = bytes[offset..<end].withUnsafeBytes { write(pipe[1], $0.baseAddress!, $0.count) }
            offset = end
        }
        close(pipe[1])
        for (index, message) in Self.samples.enumerated() {
            #expect(try await reader.receive() == ReplicationFrame(serial: UInt64(index), message: message))
        }
        await #expect(throws: ReplicationError.connectionLost("the stream ended inside a frame")) { try await reader.receive() }
        await reader.close()
    }

    @Test("a declared frame length over the limit is refused before it is read")
    func oversizedFrame() async throws {
        var pipe: [Int32] = [0, 0]
        _ = pipe.withUnsafeMutableBufferPointer { Glibc.pipe($0.baseAddress!) }
        let reader = ByteStreamTransport(input: pipe[0], output: -1)
        let length: [UInt8] = [0x80, 0x80, 0x80, 0x80, 0x04]  // 1 GiB
        _ = length.withUnsafeBytes { write(pipe[1], $0.baseAddress!, $0.count) }
        await #expect(throws: ReplicationError.self) { try await reader.receive() }
        close(pipe[1])
    }
}
