import Testing
@_spi(Conformance) @testable import Automerge

/// An `ObjId` carries a hint of where its object was in the document that
/// made it (`ObjId.hint`). An id must address the same object in every
/// document, whatever its hint says there.
@Suite("Object ids")
struct ObjIdTests {
    @Test func anIdOfAnotherDocumentDoesNotAddressTheObjectAtItsHintedPlace() throws {
        // Both documents make their first object with op 1 at the same place
        // in their object tables, by their own actor at index 0: a's id,
        // used on b, names exactly b's object but for the actor bytes.
        let a = Document.peer(0x0a), b = Document.peer(0x0b)
        let inA = try a.putObject(obj: .ROOT, key: "list", ty: .List)
        let inB = try b.putObject(obj: .ROOT, key: "list", ty: .List)
        try b.insert(obj: inB, index: 0, value: .Int(1))
        #expect(inA != inB)
        #expect(throws: AutomergeError.unknownObject(inA)) { try b.insert(obj: inA, index: 0, value: .Int(2)) }
        #expect(b.length(obj: inA) == 0)
        #expect(b.length(obj: inB) == 1)
    }

    @Test func anIdAddressesItsObjectInForksAndAfterMerges() throws {
        let a = Document.peer(0x0a)
        let text = try a.putObject(obj: .ROOT, key: "text", ty: .Text)
        try a.spliceText(obj: text, start: 0, delete: 0, value: "hello")
        // b learns other objects and actors first, so a's object sits
        // elsewhere in b's tables than a's id hints.
        let b = Document.peer(0x01)
        let own = try b.putObject(obj: .ROOT, key: "own", ty: .Map)
        try b.put(obj: own, key: "k", value: .Int(1))
        try b.merge(other: a)
        try b.spliceText(obj: text, start: 5, delete: 0, value: "!")
        #expect(try b.text(obj: text) == "hello!")
        #expect(try b.get(obj: own, key: "k") == .Scalar(.Int(1)))

        let fork = a.fork()
        try fork.spliceText(obj: text, start: 0, delete: 1, value: "j")
        #expect(try fork.text(obj: text) == "jello")
        #expect(try a.text(obj: text) == "hello")
    }

    @Test func anIdEqualsAndHashesAsItsPrintedForm() throws {
        let doc = Document.peer(0x0a)
        let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        let parsed = try #require(ObjId(list.description))  // carries no hint
        #expect(parsed == list)
        #expect(Set([list]).contains(parsed))
        try doc.insert(obj: parsed, index: 0, value: .Int(7))
        #expect(doc.length(obj: list) == 1)
        if case .Object(let read, _) = try doc.get(obj: .ROOT, key: "list") {
            #expect(read == list)
        } else {
            Issue.record("the list is not read back as an object")
        }
    }
}
