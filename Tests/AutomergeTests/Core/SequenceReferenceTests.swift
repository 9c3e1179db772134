import Testing
@_spi(Conformance) @testable import Automerge

/// A sequence element packs the element its insert op went after (the
/// op's key) into 6 bytes, a 16-bit actor index; the tree keeps the keys
/// whose actor index does not fit. Saves, changes and merges depend on
/// getting every key back exactly.
@Suite("Insert references of sequence elements")
struct SequenceReferenceTests {
    private static func element(_ id: OpId, after reference: OpId) -> SequenceElement {
        SequenceElement(id: id, reference: reference, action: .set, value: .int(Int64(id.counter)),
                        expand: false, markName: nil, successors: SuccessorList())
    }

    private static func inserts(of tree: SequenceTree) -> [(id: OpId, reference: OpId)] {
        var result: [(id: OpId, reference: OpId)] = []
        tree.forEachInsert { element, reference in result.append((element.pointee.id, reference)) }
        return result
    }

    @Test("typing, jumps, inserts at HEAD and keys of actors past 16 bits each read back the element they went after",
          arguments: [UInt64(3), 17, 40])
    func everyInsertReadsBackItsKey(seed: UInt64) throws {
        var random = StorageTestRandom(seed: seed)  // seeded, so a failure names a reproducible case
        var tree = SequenceTree(width: WidthRule(isText: false, encoding: .unicodeScalar))
        var model: [(id: OpId, reference: OpId)] = []
        var last = OpId.root
        // Actor indices on both sides of the packed 16 bits (65,535 is the
        // "not packed" mark, so it must not pack either).
        let actors: [UInt32] = [0, 1, 65_534, 65_535, 70_000]
        for counter in UInt32(1)...3_000 {
            // Mostly typing after the last insert; sometimes after a random
            // element or at HEAD.
            let reference: OpId
            switch random.next() % 10 {
            case 0: reference = .root
            case 1, 2: reference = model.isEmpty ? .root : model[Int(random.next() % UInt64(model.count))].id
            default: reference = last
            }
            let id = OpId(counter: counter, actor: actors[Int(random.next() % UInt64(actors.count))])
            let location = try #require(tree.locationAfter(reference))
            tree.insert(Self.element(id, after: reference), after: reference, at: location, actors: .forTreeTests)
            let position = reference.isRoot ? 0 : model.firstIndex { $0.id == reference }! + 1
            model.insert((id, reference), at: position)
            last = id
        }
        let read = Self.inserts(of: tree)
        #expect(read.map(\.id) == model.map(\.id))
        #expect(read.map(\.reference) == model.map(\.reference))
        let wide = model.filter { $0.reference.actor >= 65_535 }.count
        #expect(wide > 0 && tree.wideReferences.count == wide, "only keys of actors past 16 bits are kept apart")

        // A load appends the elements in order with their keys: the same keys.
        var loaded = SequenceTree(width: WidthRule(isText: false, encoding: .unicodeScalar))
        loaded.beginBulkLoad()
        for insert in model { loaded.append(Self.element(insert.id, after: insert.reference), after: insert.reference) }
        loaded.endBulkLoad(actors: .forTreeTests)
        let reloaded = Self.inserts(of: loaded)
        #expect(reloaded.map(\.id) == model.map(\.id) && reloaded.map(\.reference) == model.map(\.reference))
    }

    @Test("an element separated from the one it went after by a later insert keeps its key through a save and a merge")
    func separatedElementsSurviveSaveAndMerge() throws {
        let doc = Document.peer(0x01)
        let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "ab")
        doc.commitChange()
        let peer = doc.forkPeer(0x02)
        try doc.spliceText(obj: text, start: 1, delete: 0, value: "x")  // after "a": "b" no longer follows what it went after
        try peer.spliceText(obj: text, start: 2, delete: 0, value: "y")  // after "b"
        try doc.merge(peer: peer)
        try peer.merge(peer: doc)
        #expect(try doc.text(obj: text) == "axby")
        #expect(try peer.text(obj: text) == "axby")
        // A load rebuilds each change from the saved keys and checks its hash
        // against the heads: a wrong key fails it. (The two saves differ only
        // in the order of the changes, which is the order each peer saw them.)
        for saved in [doc.save(), peer.save()] {
            let reloaded = try Document(saved)
            #expect(try reloaded.text(obj: text) == "axby")
            #expect(reloaded.heads() == doc.heads())
        }
    }
}
