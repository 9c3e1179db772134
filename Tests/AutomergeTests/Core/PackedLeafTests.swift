import Foundation
import Testing
@_spi(Conformance) @testable import Automerge

/// A loaded document keeps its sequences' plain elements packed as bytes
/// (``PackedLeaf``): about 2 bytes a typed character instead of 64. Reads
/// must see exactly the elements that were packed, and the first write to
/// a packed leaf must turn it back into those elements.
@Suite("Packed leaves")
struct PackedLeafTests {
    static let values: [Primitive] = [
        .null, .bool(false), .bool(true), .uint(0), .uint(.max), .int(-1), .int(.min), .int(.max), .f64(-0.0),
        .f64(.nan), .f64(1.5), .string(""), .string("a"), .string("\u{7F}"), .string("é"), .string("€"), .string("😀"),
        .string("e\u{301}"), .string("👩‍👩‍👧"), .string("\r\n"), .string(String(repeating: "long ", count: 40)),
        .bytes([]), .bytes([0, 0x80, 0xFF]), .counter(-5), .timestamp(1_700_000_000_000),
        .unknown(typeCode: 14, bytes: [1, 2, 3]),
    ]

    @Test("every kind of scalar reads back as it was packed, the next value's bytes untouched")
    func valuesRoundTrip() {
        var bytes: [UInt8] = []
        for value in Self.values {
            let before = bytes.count
            PackedValue.append(value, to: &bytes)
            #expect(bytes.count - before == PackedValue.size(of: value), "size of \(value)")
        }
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = 0, skipped = 0
            for value in Self.values {
                let start = cursor
                let read = PackedValue.read(buffer, at: &cursor)
                #expect(read == value)
                skipped = start
                PackedValue.skip(buffer, at: &skipped)
                #expect(skipped == cursor, "skip of \(value)")
            }
            #expect(cursor == buffer.count)
        }
    }

    /// A leaf's worth of plain elements: runs typed by two actors, some
    /// deleted, with every kind of value.
    static func plainElements(width: WidthRule, seed: UInt64) -> [SequenceElement] {
        var random = StorageTestRandom(seed: seed)
        var elements: [SequenceElement] = []
        var previous = OpId.root
        var counter: UInt32 = 1
        while elements.count < SequenceTree.maxLeafElements {
            let startsRun = random.next() % 5 == 0
            let actor = startsRun ? UInt32(random.next() % 3) : previous.actor
            counter = startsRun ? UInt32(random.next() % 100_000) + 1 : counter + 1
            let reference = startsRun ? OpId(counter: UInt32(random.next() % 50), actor: 1) : previous
            let id = OpId(counter: counter, actor: actor)
            let deleted = random.next() % 4 == 0
            let value = values[Int(random.next() % UInt64(values.count))]
            var element = SequenceElement(id: id, reference: reference, action: .set, value: value, expand: false, markName: nil,
                                          successors: deleted ? SuccessorList(only: OpId(counter: 200_000 + counter, actor: 2))
                                                              : SuccessorList())
            element.units = element.units(under: width)
            elements.append(element)
            previous = id
        }
        return elements
    }

    static func fields(_ element: SequenceElement) -> String {
        "\(element.id) \(String(describing: element.reference)) \(element.value) \(element.successors.map(\.id)) \(element.units)"
    }

    @Test("a leaf of plain elements decodes to the same elements, widths included, in every text encoding, wherever its bytes are in the arena",
          arguments: [TextEncoding.unicodeScalar, .utf8, .utf16, .graphemeCluster])
    func leafRoundTrip(encoding: TextEncoding) throws {
        var arena = PackedArena()
        for (seed, isText) in [(UInt64(1), true), (2, true), (3, false)] {
            let width = WidthRule(isText: isText, encoding: encoding)
            let elements = Self.plainElements(width: width, seed: seed)
            let place = try #require(elements.withUnsafeBufferPointer { arena.pack($0) })
            let packed = PackedLeaf(bytes: arena.bytes(at: place))
            #expect(packed.count == elements.count)
            #expect(packed.units == elements.reduce(0) { $0 + Int($1.units) })
            #expect(packed.elements(under: width).map(Self.fields) == elements.map(Self.fields))
            for index in elements.indices {
                #expect(packed.id(at: index) == elements[index].id)
                #expect(packed.index(of: elements[index].id) == index)
                #expect(Self.fields(packed.element(at: index, under: width)) == Self.fields(elements[index]))
            }
            #expect(packed.index(of: OpId(counter: 999_999, actor: 0)) == nil)
        }
    }

    @Test("a leaf holding an element that is not plain stays elements")
    func notPlainIsNotPacked() {
        let width = WidthRule(isText: true, encoding: .unicodeScalar)
        var elements = Self.plainElements(width: width, seed: 4)
        let plain = elements[10]
        let variants: [SequenceElement] = [
            SequenceElement(id: plain.id, reference: plain.reference!, action: .mark, value: .null, expand: false,
                            markName: "bold", successors: SuccessorList()),
            SequenceElement(id: plain.id, reference: plain.reference!, action: .makeText, value: .null, expand: false,
                            markName: nil, successors: SuccessorList()),
            SequenceElement(id: plain.id, reference: OpId(counter: 1, actor: 70_000), action: .set, value: .string("x"),
                            expand: false, markName: nil, successors: SuccessorList()),
            SequenceElement(id: plain.id, reference: plain.reference!, action: .set, value: .counter(1), expand: false,
                            markName: nil, successors: SuccessorList(sorted: [Successor(id: OpId(counter: 9, actor: 0), increment: 1)])),
        ]
        var arena = PackedArena()
        for variant in variants {
            elements[10] = variant
            #expect(elements.withUnsafeBufferPointer { arena.pack($0) } == nil, "\(variant.action) packed")
            #expect(arena.byteCount == 0 && arena.blockCount == 0, "a leaf that is not packed wrote to the arena")
        }
        var updated = plain
        updated.updates = [Op(id: OpId(counter: 300_000, actor: 0), action: .set, insert: false, key: .element(plain.id),
                              value: .string("y"), expand: false, markName: nil)]
        elements[10] = updated
        #expect(elements.withUnsafeBufferPointer { arena.pack($0) } == nil, "an updated element packed")
        #expect(arena.byteCount == 0 && arena.blockCount == 0)
    }

    @Test("a loaded text is packed; edits anywhere in it read and save as edits of the document before the save")
    func editsOfALoadedText() throws {
        let original = Document()
        let text = try original.putObject(obj: .ROOT, key: "text", ty: .Text)
        var random = StorageTestRandom(seed: 7)
        for round in 0..<40 {
            let length = Int(original.length(obj: text))
            let position = length == 0 ? 0 : Int(random.next() % UInt64(length + 1))
            let delete = round % 5 == 4 ? min(3, length - position) : 0
            try original.spliceText(obj: text, start: UInt64(position), delete: Int64(delete),
                                    value: String(repeating: "wörd😀 ", count: 1 + Int(random.next() % 30)))
            if round % 7 == 0 { original.commitWith(message: nil, timestamp: Date()) }
        }
        let loaded = try Document(original.save())
        let packedLeaves = loaded.locked { $0.ops.sequences.reduce(0) { $0 + $1.packedStatistics.leaves } }
        #expect(packedLeaves > 1, "a loaded text's leaves are packed")
        for step in 0..<200 {
            let length = Int(original.length(obj: text))
            let position = Int(random.next() % UInt64(length + 1))
            let delete = step % 3 == 0 ? min(Int(random.next() % 4), length - position) : 0
            for document in [original, loaded] {
                try document.spliceText(obj: text, start: UInt64(position), delete: Int64(delete), value: step % 2 == 0 ? "ab" : "")
            }
            #expect(try loaded.text(obj: text) == original.text(obj: text), "step \(step)")
        }
        #expect(try Document(loaded.save()).text(obj: text) == original.text(obj: text))
        try loaded.checkInvariants()
    }

    @Test("edits that unpack a loaded text's leaves give the arena their bytes back, all of them once none is packed")
    func unpackingCompactsTheArena() throws {
        let original = Document()
        let text = try original.putObject(obj: .ROOT, key: "text", ty: .Text)
        try original.spliceText(obj: text, start: 0, delete: 0, value: String(repeating: "packed text ", count: 400))
        let loaded = try Document(original.save())
        func arena() -> (leaves: Int, bytes: Int) {
            loaded.locked { state in
                let tree = state.ops.sequence(of: state.ops.objects.first { $0.kind == .text }!)
                return (tree.packedStatistics.leaves, tree.packedArena.capacity)
            }
        }
        let (leaves, bytes) = arena()
        #expect(leaves >= 60 && bytes > 0)
        // Loaded leaves are full: an insert every leaf's length apart unpacks one leaf each.
        var position = 0
        while arena().leaves > leaves / 4, position < Int(loaded.length(obj: text)) {
            for document in [original, loaded] { try document.spliceText(obj: text, start: UInt64(position), delete: 0, value: "x") }
            position += SequenceTree.maxLeafElements + 1
        }
        #expect(arena().leaves <= leaves / 4)
        #expect(arena().bytes < bytes / 2, "the arena keeps the bytes of unpacked leaves")
        try loaded.checkInvariants()
        let length = loaded.length(obj: text)
        for offset in stride(from: 0, to: Int(length), by: 16) {
            for document in [original, loaded] { try document.spliceText(obj: text, start: UInt64(offset), delete: 1, value: "y") }
        }
        #expect(arena() == (0, 0))
        try loaded.checkInvariants()
        #expect(try loaded.text(obj: text) == original.text(obj: text))
        #expect(try Document(loaded.save()).text(obj: text) == original.text(obj: text))
    }

    @Test("a loaded short text, one packed leaf and no run index, finds its elements by id: cursors, and remote inserts after each")
    func singleLeafFindsElementsById() throws {
        let original = Document()
        let text = try original.putObject(obj: .ROOT, key: "text", ty: .Text)
        try original.spliceText(obj: text, start: 0, delete: 0, value: "short")
        try original.spliceText(obj: text, start: 1, delete: 1, value: "")
        let loaded = try Document(original.save())
        let shape = loaded.locked { state in
            let tree = state.ops.sequence(of: state.ops.objects.first { $0.kind == .text }!)
            return (tree.nodes.count, tree.packedStatistics.leaves, tree.packedRuns.isEmpty)
        }
        #expect(shape == (1, 1, true))
        for position in 0..<UInt64(4) {
            let cursor = try loaded.cursor(obj: text, position: position)
            #expect(try loaded.position(obj: text, cursor: cursor) == position)
        }
        // A peer inserts after every element (the deleted one too): applying it looks each up by id.
        let peer = original.fork()
        for position in stride(from: 4, through: 0, by: -1) {
            try peer.spliceText(obj: text, start: UInt64(position), delete: 0, value: "_")
        }
        try loaded.merge(other: peer)
        #expect(try loaded.text(obj: text) == "_s_o_r_t_")
        try loaded.checkInvariants()
    }

    @Test("a loaded document saves its packed leaves to the bytes its elements saved to: every kind of value, deletes, texts")
    func packedLeavesSaveAsElements() throws {
        let original = Document()
        let list = try original.putObject(obj: .ROOT, key: "list", ty: .List)
        let text = try original.putObject(obj: .ROOT, key: "text", ty: .Text)
        var random = StorageTestRandom(seed: 11)
        for round in 0..<600 {
            let value = Self.values[round % Self.values.count]
            try original.insert(obj: list, index: original.length(obj: list), value: value.publicValue)
            try original.spliceText(obj: text, start: original.length(obj: text), delete: 0, value: round % 3 == 0 ? "😀x" : "ab")
            if round % 4 == 3 {
                try original.delete(obj: list, index: random.next() % original.length(obj: list))
                try original.spliceText(obj: text, start: random.next() % original.length(obj: text), delete: 1)
            }
            if round % 50 == 49 { original.commitWith(message: nil, timestamp: Date(timeIntervalSince1970: 0)) }
        }
        let loaded = try Document(original.save())
        let packedLeaves = loaded.locked { $0.ops.sequences.reduce(0) { $0 + $1.packedStatistics.leaves } }
        #expect(packedLeaves > 10, "the loaded list's and text's leaves are packed")
        #expect(loaded.save(compress: false) == original.save(compress: false))
    }
}
