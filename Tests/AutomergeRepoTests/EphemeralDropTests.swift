import NIOCore
import Testing
@testable import AutomergeRepo
@testable import AutomergeRepoProtocol

/// An ephemeral message too large to relay is dropped as soon as its first
/// bytes show what it is, never gathered or decoded; every other message,
/// and any message whose first bytes do not say, is gathered whole.
@Suite("sync server: ephemeral messages too large to relay")
struct EphemeralDropTests {
    static let peer = PeerId("peer"), server = PeerId("server")

    static func ephemeral(_ size: Int) -> [UInt8] {
        RepoMessage.ephemeral(senderId: peer, targetId: server, count: 1, sessionId: "s", documentId: .random(),
                              data: [UInt8](repeating: 0x5A, count: size)).encoded()
    }

    /// A map whose entries come in the order given, as any encoder may write them.
    static func map(_ entries: [(String, CBORValue)]) -> [UInt8] {
        CBORValue.map(entries.map { CBORValue.MapEntry(.textString($0.0), $0.1) }).encoded()
    }

    static func peek(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { RepoMessage.isEphemeral(prefix: $0) }
    }

    @Test("the type is read wherever it lies among the entries, past large values by their lengths")
    func typeAnywhere() {
        #expect(Self.peek(Self.ephemeral(10)))
        let typeLast = Self.map([("data", .byteString([UInt8](repeating: 1, count: 70_000))),
                                 ("nested", .array([.map([CBORValue.MapEntry(.unsigned(1), .tagged(2, .float(1.5)))])])),
                                 ("count", .unsigned(1 << 40)), ("flag", .bool(true)),
                                 ("type", .textString("ephemeral"))])
        #expect(Self.peek(typeLast))
        #expect(!Self.peek(RepoMessage.sync(senderId: Self.peer, targetId: Self.server, documentId: .random(),
                                            data: [1, 2, 3]).encoded()))
        #expect(!Self.peek(Self.map([("type", .textString("Ephemeral"))])))
    }

    @Test("bytes that do not say give no answer: the message is then read whole")
    func noAnswer() {
        let typeLast = Self.map([("data", .byteString([UInt8](repeating: 1, count: 1000))), ("type", .textString("ephemeral"))])
        #expect(!Self.peek(Array(typeLast.prefix(500))), "the type lies past the prefix")
        #expect(!Self.peek([]))
        #expect(!Self.peek([0xA1, 0x64] + Array("type".utf8) + [0x7F, 0x69] + Array("ephemeral".utf8) + [0xFF]),
                "an indefinite-length type")
        #expect(!Self.peek([0xBF, 0x64] + Array("type".utf8) + [0x69] + Array("ephemeral".utf8) + [0xFF]),
                "an indefinite-length map")
        #expect(!Self.peek([0xA2, 0x61, 0x61, 0x5B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
                "a declared length past the bytes")
        #expect(!Self.peek([0xA2, 0x61, 0x61] + [UInt8](repeating: 0x81, count: 100_000)), "nesting past the limit")
        #expect(!Self.peek([0xA2, 0x61, 0x61, 0x9B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
                "a count past the bytes")
    }

    @Test("a large ephemeral message is dropped at its first frame; later fragments are not gathered")
    func dropsLargeEphemeral() throws {
        var assembler = MessageAssembler(maximumSize: 1 << 20, maximumEphemeralSize: 1000)
        let message = Self.ephemeral(5000)
        let first = ByteBuffer(bytes: message.prefix(2000)), rest = ByteBuffer(bytes: message.dropFirst(2000))
        #expect(try assembler.add(.binary, first, fin: false) == nil)
        guard case .droppedEphemeral(let size) = try assembler.add(.continuation, rest, fin: true) else {
            Issue.record("not dropped")
            return
        }
        #expect(size == message.count)
        // The next message is read as usual.
        let small = Self.ephemeral(10)
        guard case .message(.binary(let bytes)) = try assembler.add(.binary, ByteBuffer(bytes: small), fin: true) else {
            Issue.record("the next message was not read")
            return
        }
        #expect(bytes == small)
    }

    @Test("a large message of another type, or one whose type comes too late to see, is gathered whole")
    func gathersOthers() throws {
        var assembler = MessageAssembler(maximumSize: 1 << 20, maximumEphemeralSize: 1000)
        let sync = RepoMessage.sync(senderId: Self.peer, targetId: Self.server, documentId: .random(),
                                    data: [UInt8](repeating: 7, count: 5000)).encoded()
        #expect(try assembler.add(.binary, ByteBuffer(bytes: sync.prefix(10)), fin: false) == nil)
        guard case .message(.binary(let bytes)) = try assembler.add(.continuation, ByteBuffer(bytes: sync.dropFirst(10)), fin: true)
        else {
            Issue.record("the sync message was not read whole")
            return
        }
        #expect(bytes == sync)
    }

    @Test("a dropped message still may not pass the size limit")
    func droppedStillLimited() throws {
        var assembler = MessageAssembler(maximumSize: 4000, maximumEphemeralSize: 1000)
        let message = Self.ephemeral(5000)
        #expect(try assembler.add(.binary, ByteBuffer(bytes: message.prefix(2000)), fin: false) == nil)
        #expect(throws: MessageAssembler.TooLarge.self) {
            try assembler.add(.continuation, ByteBuffer(bytes: message.dropFirst(2000)), fin: true)
        }
    }
}

