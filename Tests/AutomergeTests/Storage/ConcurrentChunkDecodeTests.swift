import AutomergeConformance
import Testing
@testable import Automerge

/// A run of change chunks is decoded on two cores (``ConcurrentChunkDecode``)
/// with exactly the result of decoding them one after another: the same
/// changes, and for bad input the same error at the same chunk, the input's
/// row budget included.
@Suite("Concurrent chunk decode")
struct ConcurrentChunkDecodeTests {
    /// `count` change chunks, one per commit, of varied sizes (1 to 40 ops).
    static let chunks: [[UInt8]] = {
        let doc = Document()
        doc.actor = ActorId(hexString: "d0")!
        var chunks: [[UInt8]] = []
        do {
            let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
            for round in 0..<160 {
                let before = doc.heads()
                if round % 5 == 0 {
                    try doc.put(obj: .ROOT, key: "key \(round % 7)", value: .Int(Int64(round)))
                } else {
                    try doc.spliceText(obj: text, start: 0, delete: 0, value: String(repeating: "w", count: round % 40 + 1))
                }
                doc.commitReproducibly()
                chunks.append(Array(try doc.encodeChangesSince(heads: before)))
            }
        } catch {
            Issue.record("building the chunks failed: \(error)")
        }
        return chunks
    }()

    /// The hashes of the changes `bytes` decode to, or the error.
    static func decoded(_ bytes: [UInt8], limits: DecodeLimits = .default) -> Result<[ChangeHash], LoadError> {
        Result { () throws(LoadError) in
            try StorageFile.decode(bytes, limits: limits).map { chunk in
                guard case .change(let change) = chunk else { return ChangeHash(bytes: []) }
                return change.hash
            }
        }
    }

    /// The same, decoding one chunk after another.
    static func decodedInOrder(_ bytes: [UInt8], limits: DecodeLimits = .default) -> Result<[ChangeHash], LoadError> {
        Result { () throws(LoadError) in
            var budget = RowBudget(limits: limits, inputSize: bytes.count)
            let framing = ChunkFraming.frames(bytes)
            let hashes = try framing.frames.map { frame throws(LoadError) in
                let chunk = try StorageFile.decode(frame, verifyHeads: true, limits: limits, budget: &budget)
                guard case .change(let change) = chunk else { return ChangeHash(bytes: []) }
                return change.hash
            }
            if let failure = framing.failure { throw failure }
            return hashes
        }
    }

    @Test("a run of change chunks decodes to the changes of the ordered decode")
    func sameChanges() throws {
        let framing = ChunkFraming.frames(Self.chunks.flatMap { $0 })
        #expect(framing.failure == nil)
        #expect(ConcurrentChunkDecode.pays(for: framing.frames[...]), "enough chunks to take the concurrent path")
        let hashes = try Self.decoded(Self.chunks.flatMap { $0 }).get()
        #expect(hashes == Self.chunks.map { try! ChunkFraming.split($0)[0].changeHash })
    }

    @Test("a damaged chunk in either half fails with the ordered decode's error, at its index",
          arguments: [0, 3, 79, 80, 81, 120, 159])
    func damagedChunk(at index: Int) throws {
        var chunks = Self.chunks
        var contents = Array(try ChunkFraming.split(chunks[index])[0].contents)
        contents[contents.count / 2] ^= 0x5a
        contents.removeLast(3)
        chunks[index] = ChunkFraming.frame(type: .change, contents: contents).bytes
        let bytes = chunks.flatMap { $0 }
        let ordered = Self.decodedInOrder(bytes)
        guard case .failure(let error) = ordered else {
            Issue.record("the damaged chunk decodes")
            return
        }
        guard case .inChunk(let failing, _) = error else {
            Issue.record("error without its chunk: \(error)")
            return
        }
        #expect(failing == index)
        #expect(Self.decoded(bytes) == ordered)
    }

    @Test("a chunk whose checksum does not match fails in either half, at its index", arguments: [0, 79, 80, 159])
    func badChecksum(at index: Int) {
        var chunks = Self.chunks
        chunks[index][5] ^= 0xff
        let bytes = chunks.flatMap { $0 }
        #expect(Self.decoded(bytes) == .failure(.inChunk(index, .badChecksum)))
        #expect(Self.decoded(bytes) == Self.decodedInOrder(bytes))
    }

    /// Rust's load reports the first chunk that fails, in file order: a
    /// checksum is verified with its chunk's decode, not for the whole file first.
    @Test("the first chunk that fails, in file order, names the error, whatever fails in later chunks")
    func firstFailureInFileOrder() throws {
        var chunks = Self.chunks
        var contents = Array(try ChunkFraming.split(chunks[30])[0].contents)
        contents.removeLast(3)
        chunks[30] = ChunkFraming.frame(type: .change, contents: contents).bytes
        chunks[120][5] ^= 0xff
        let bytes = chunks.flatMap { $0 }
        guard case .failure(.inChunk(30, let error)) = Self.decoded(bytes) else {
            Issue.record("not the error of chunk 30: \(Self.decoded(bytes))")
            return
        }
        #expect(error != .badChecksum)
        // A file whose framing breaks after a chunk that fails: that chunk's error.
        #expect(Self.decoded(bytes + [0x85, 0x6F]) == Self.decoded(bytes))
        // Framing that breaks with every chunk before it sound: the framing error.
        #expect(Self.decoded(Self.chunks.flatMap { $0 } + [0x85, 0x6F]) == .failure(.inChunk(160, .lengthPastEnd(what: "chunk magic", length: 4, remaining: 2))))
    }

    @Test("the input's row budget is spent in file order, whichever half overspends it")
    func rowBudget() throws {
        let bytes = Self.chunks.flatMap { $0 }
        let rows = try Self.decodedInOrder(bytes).get().count + ChunkFraming.split(bytes).reduce(0) { sum, chunk in
            sum + (try! ChangeChunk.decode(chunk)).ops.count
        }
        // Budgets that run out in the first half, at the middle, in the
        // second half, at the last chunk, and that just suffice.
        for budget in [1, 50, rows / 3, rows / 2, rows / 2 + 7, 2 * rows / 3, rows - 1, rows] {
            var limits = DecodeLimits()
            limits.rowsPerByte = 0
            limits.minRows = budget
            let ordered = Self.decodedInOrder(bytes, limits: limits)
            #expect(Self.decoded(bytes, limits: limits) == ordered, "budget \(budget) of \(rows) rows")
            if budget == rows { #expect((try? ordered.get()) != nil, "the whole budget suffices") }
            if budget < rows { #expect((try? ordered.get()) == nil, "budget \(budget) runs out") }
        }
    }
}
