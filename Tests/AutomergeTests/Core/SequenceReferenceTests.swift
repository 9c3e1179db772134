import Testing
@_spi(Conformance) @testable import Automerge

/// A sequence element does not store the element its insert op went after
/// (the op's key): the tree keeps a flag for the usual case, the element
/// right before it, and the others apart. Saves, changes and merges depend
/// on getting every key back exactly.
@Suite("Insert references of sequence elements")
struct SequenceReferenceTests {
    private static func element(_ counter: UInt32) -> SequenceElement {
        SequenceElement(id: OpId(counter: counter, actor: 0), action: .set, value: .int(Int64(counter)),
                        expand: false, markName: nil, successors: SuccessorList())
    }

    private static func inserts(of tree: SequenceTree) -> [(id: OpId, reference: OpId)] {
        var result: [(id: OpId, reference: OpId)] = []
        tree.forEachInsert { element, reference in result.append((element.pointee.id, reference)) }
        return result
    }

    @Test("typing, jumps back into the text and inserts at HEAD each read back the element they went after", arguments: [UInt64(3), 17, 40])
    func insertsInTheMiddleKeepTheirReferences(seed: UInt64) throws {
        var random = StorageTestRandom(seed: seed)  // seeded, so a failure names a reproducible case
        var tree = SequenceTree(width: WidthRule(isText: false, encoding: .unicodeScalar))
        var model: [(id: OpId, reference: OpId)] = []
        var last = OpId.root
        for counter in UInt32(1)...3_000 {
            // Mostly typing after the last insert; sometimes after a random
            // element (which separates its follower from it) or at HEAD.
            let reference: OpId
            switch random.next() % 10 {
            case 0: reference = .root
            case 1, 2: reference = model.isEmpty ? .root : model[Int(random.next() % UInt64(model.count))].id
            default: reference = last
            }
            let location = try #require(tree.locationAfter(reference))
            tree.insert(Self.element(counter), after: reference, at: location)
            let position = reference.isRoot ? 0 : model.firstIndex { $0.id == reference }! + 1
            model.insert((OpId(counter: counter, actor: 0), reference), at: position)
            last = OpId(counter: counter, actor: 0)
        }
        let read = Self.inserts(of: tree)
        #expect(read.map(\.id) == model.map(\.id))
        #expect(read.map(\.reference) == model.map(\.reference))
        #expect(tree.explicitReferences.count < model.count / 2, "most elements follow the element they went after")

        // A load appends the elements in order with their keys: the same tree.
        var loaded = SequenceTree(width: WidthRule(isText: false, encoding: .unicodeScalar))
        loaded.beginBulkLoad()
        for insert in model { loaded.append(Self.element(insert.id.counter), after: insert.reference) }
        loaded.endBulkLoad()
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
