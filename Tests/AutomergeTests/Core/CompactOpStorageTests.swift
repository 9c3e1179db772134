import Testing
@_spi(Conformance) @testable import Automerge

/// The compact containers of the op set: a map object's key table and an
/// op's successor list. Each must behave exactly as the plain `Dictionary`
/// and sorted `Array` it replaces.
@Suite("Compact op storage")
struct CompactOpStorageTests {
    private static func op(_ counter: UInt32, _ key: String) -> Op {
        Op(id: OpId(counter: counter, actor: 0), action: .set, insert: false, key: .map(MapKey(key)), value: .uint(UInt64(counter)))
    }

    @Test(arguments: [UInt64(1), 7, 99])
    func mapEntriesAgreeWithADictionary(seed: UInt64) {
        var random = StorageTestRandom(seed: seed)  // seeded, so a failure names a reproducible case
        var entries = MapEntries()
        var actors = ActorTable()
        _ = actors.intern(ActorId())
        // Keyed by UTF-8 bytes: a `[String: _]` would merge the two spellings of "café".
        var model: [[UInt8]: [Op]] = [:]
        var order: [String] = []
        for counter in UInt32(1)...20_000 {
            // Short and long keys (the hash reads 8 bytes at a time), repeats, and
            // canonically equivalent strings, which must stay apart.
            let key: String
            switch random.next() % 5 {
            case 0: key = "k\(random.next() % 3_000)"
            case 1: key = String(repeating: "long key ", count: Int(random.next() % 4)) + "\(random.next() % 500)"
            case 2: key = random.next() % 2 == 0 ? "caf\u{E9}" : "cafe\u{301}"
            case 3: key = ""
            default: key = "\(counter)"
            }
            if model[Array(key.utf8)] == nil { order.append(key) }
            _ = entries.add(Self.op(counter, key), to: MapKey(key), hash: MapEntries.hash(MapKey(key)), actors: actors)
            model[Array(key.utf8), default: []].append(Self.op(counter, key))
        }
        #expect(entries.count == model.count)
        #expect(entries.keys.map { Array($0.string.utf8) } == order.map { Array($0.utf8) })
        #expect(entries.allSatisfy { key, ops in model[Array(key.string.utf8)] == Array(ops) })
        #expect(order.allSatisfy { entries[MapKey($0)].map(Array.init) == model[Array($0.utf8)] })
        #expect(entries[MapKey("never used")] == nil)
        #expect(entries[MapKey("caf\u{E9}")]?.first?.id != entries[MapKey("cafe\u{301}")]?.first?.id)
    }

    @Test func chunkedListsKeepOrderAndFillEveryChunkButTheLast() {
        let capacity = ChunkedList<Int>.chunkCapacity
        var list = ChunkedList<Int>()
        #expect(list.isEmpty && list.chunks.isEmpty)
        let total = 3 * capacity + 5
        for value in 0..<total { list.append(value) }
        #expect(list.count == total)
        #expect(list.chunks.flatMap { $0 } == Array(0..<total))
        #expect(list.chunks.dropLast().allSatisfy { $0.count == capacity })
        #expect(list.chunks.last?.count == 5)
    }

    @Test func aTransactionOfSeveralChunksCommitsTheChangeALoadRebuilds() throws {
        // A load rebuilds every change from the document's op rows and
        // checks its hash against the heads: the commit's encoding of a
        // transaction held in several chunks must be exactly that change.
        let doc = Document.peer(0x0c)
        let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        let count = 3 * ChunkedList<ChangeOp>.chunkCapacity + 7
        var expected = ""
        for index in 0..<count {
            let character = index % 11 == 0 ? "é" : String(UnicodeScalar(UInt8(97 + index % 26)))
            try doc.spliceText(obj: text, start: UInt64(expected.unicodeScalars.count), delete: 0, value: character)
            expected += character
            if index % 97 == 96 {
                try doc.spliceText(obj: text, start: 0, delete: 1, value: nil)
                expected.removeFirst()
            }
        }
        doc.commitWith()
        #expect(doc.getHistory().count == 1)
        let loaded = try Document(doc.save())
        #expect(try loaded.text(obj: text) == expected)
        #expect(loaded.heads() == doc.heads())
    }

    @Test func keyOpsHoldOneOpInlineAndMoreInOpIdOrder() {
        var actors = ActorTable()
        _ = actors.intern(ActorId())
        var ops = KeyOps(Self.op(5, "k"))
        #expect(ops.map(\.id.counter) == [5])
        ops[0].addSuccessor(Successor(id: OpId(counter: 9, actor: 0)), actors: actors)
        #expect(!ops[0].isVisible)
        ops.appendSorted(Self.op(9, "k"), actors: actors)
        ops.appendSorted(Self.op(7, "k"), actors: actors)  // a concurrent op with a lower id goes before
        ops.appendSorted(Self.op(2, "k"), actors: actors)
        #expect(ops.map(\.id.counter) == [2, 5, 7, 9])
        #expect(ops[1].successors.count == 1, "the inline op's successor moved with it")
        ops[3].addSuccessor(Successor(id: OpId(counter: 11, actor: 0)), actors: actors)
        #expect(!ops[3].isVisible && ops[2].isVisible)

        #expect(ops.allSatisfy { $0.key == .map(MapKey("k")) })
    }

    @Test func aKeysInlineOpReadsBackWithEveryFieldAndAnOpUsingSequenceFieldsIsKeptWhole() {
        var actors = ActorTable()
        _ = actors.intern(ActorId())
        let plain = Self.op(4, "k")
        #expect(Array(KeyOps(plain)) == [plain])
        // A mark op on a map key (a hostile file can hold one) keeps its name and flag.
        let mark = Op(id: OpId(counter: 6, actor: 0), action: .mark, insert: false, key: .map(MapKey("k")),
                      value: .bool(true), expand: true, markName: "bold")
        var ops = KeyOps(mark)
        #expect(Array(ops) == [mark])
        ops[0].addSuccessor(Successor(id: OpId(counter: 8, actor: 0)), actors: actors)
        #expect(ops[0].markName == "bold" && ops[0].expand && ops[0].successors.count == 1)
        var counter = KeyOps(Op(id: OpId(counter: 1, actor: 0), action: .set, insert: false, key: .map(MapKey("n")), value: .counter(1)))
        counter.apply(ChangeOp(id: OpId(counter: 2, actor: 0), object: .root, key: .map(MapKey("n")), insert: false, action: .increment,
                               value: .int(5), predecessors: [OpId(counter: 1, actor: 0)]),
                      successor: Successor(id: OpId(counter: 2, actor: 0), increment: 5), actors: actors)
        // The increment is stored after the counter (documents keep it as a row) and is its successor.
        #expect(counter.map(\.id.counter) == [1, 2] && counter[0].counterValue(at: nil) == 6 && counter[0].isVisible)
    }

    @Test func successorListsStaySortedAndKeepIncrements() {
        var actors = ActorTable()
        _ = actors.intern(ActorId())
        var list = SuccessorList()
        #expect(list.isEmpty && list.allIncrements)
        list.insert(Successor(id: OpId(counter: 5, actor: 0)), actors: actors)
        #expect(Array(list.map(\.id.counter)) == [5])
        #expect(!list.allIncrements)
        list.insert(Successor(id: OpId(counter: 2, actor: 0)), actors: actors)
        list.insert(Successor(id: OpId(counter: 9, actor: 0), increment: 3), actors: actors)
        #expect(list.map(\.id.counter) == [2, 5, 9])
        #expect(list.map(\.increment) == [nil, nil, 3])

        var counter = SuccessorList()
        counter.insert(Successor(id: OpId(counter: 4, actor: 0), increment: -1), actors: actors)
        #expect(counter.count == 1 && counter.allIncrements && counter[0].increment == -1)
        #expect(SuccessorList(sorted: [Successor(id: OpId(counter: 4, actor: 0), increment: -1)]) == counter)
        #expect(SuccessorList(sorted: []) == SuccessorList())
    }
}
