import Foundation
import Testing
@_spi(Conformance) @testable import Automerge

/// The op set's invariant check passes on documents that every kind of edit,
/// merge and load built, reports each kind of damage by the invariant it
/// breaks and the object it is in, and runs after every document call in a
/// test that asks for it.
@Suite("Op set invariants")
struct OpSetInvariantTests {
    /// Maps, a list holding an object put over an element, text with a mark,
    /// and a key two peers set concurrently.
    static func builtDocument() throws -> Document {
        let doc = Document.peer(1)
        let map = try doc.putObject(obj: .ROOT, key: "map", ty: .Map)
        try doc.put(obj: map, key: "a", value: .Int(1))
        let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        try doc.splice(obj: list, start: 0, delete: 0, values: [.Int(1), .Int(2), .Int(3)])
        _ = try doc.putObject(obj: list, index: 1, ty: .Map)
        let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "hello world")
        try doc.mark(obj: text, start: 1, end: 4, expand: .both, name: "bold", value: .Boolean(true))
        let other = doc.forkPeer(2)
        try doc.put(obj: .ROOT, key: "x", value: .Int(1))
        try other.put(obj: .ROOT, key: "x", value: .Int(2))
        try doc.merge(peer: other)
        return doc
    }

    static func brokenInvariant(_ ops: OpSet) -> InvariantViolation? {
        do {
            try ops.checkInvariants()
            return nil
        } catch {
            return error
        }
    }

    /// The op set of `doc`, and the index of the object at `key` of the root.
    static func opSet(of doc: Document, object key: String) throws -> (ops: OpSet, index: Int) {
        let ops = doc.locked { $0.ops }
        let obj = try #require(objectId(try doc.get(obj: .ROOT, key: key)))
        return (ops, try #require(ops.resolve(obj)).index)
    }

    static func objectId(_ value: Value?) -> ObjId? {
        if case .Object(let id, _)? = value { return id }
        return nil
    }

    @Test("a document built by every kind of edit and a merge passes, and so does its saved and loaded copy")
    func builtDocumentPasses() throws {
        let doc = try Self.builtDocument()
        try doc.checkInvariants()
        try Document(doc.save()).checkInvariants()
    }

    @Test("an object put over a list element keeps its path once loaded")
    func listPutObjectLoaded() throws {
        let doc = try Self.builtDocument()
        let list = try #require(Self.objectId(try doc.get(obj: .ROOT, key: "list")))
        let item = try #require(Self.objectId(try doc.get(obj: list, index: 1)))
        let loaded = try Document(doc.save())
        #expect(try loaded.path(obj: item) == doc.path(obj: item))
        #expect(try doc.path(obj: item).last?.prop == .Index(1))
    }

    @Test("the root moved from the front of the object table")
    func rootFirst() throws {
        var (ops, index) = try Self.opSet(of: Self.builtDocument(), object: "map")
        ops.objects.swapAt(0, index)
        #expect(Self.brokenInvariant(ops)?.invariant == .rootObjectFirst)
    }

    @Test("two objects swapped in the table, or at a depth their parent does not give")
    func objectTable() throws {
        var (ops, index) = try Self.opSet(of: Self.builtDocument(), object: "map")
        var swapped = ops
        swapped.objects.swapAt(index, index + 1)
        let violation = try #require(Self.brokenInvariant(swapped))
        #expect(violation.invariant == .objectFindable)
        #expect(violation.structure.hasPrefix("object \(ops.objects[index + 1].id.label) "))
        ops.objects[index].depth += 1
        #expect(Self.brokenInvariant(ops)?.invariant == .parentPrecedesObject)
    }

    @Test("an object whose key in its parent holds no op that made it")
    func keyInParent() throws {
        var (ops, index) = try Self.opSet(of: Self.builtDocument(), object: "map")
        let object = ops.objects[index]
        ops.objects[index] = ObjectState(id: object.id, kind: object.kind, parent: object.parent,
                                         keyInParent: .map(MapKey("elsewhere")), depth: object.depth, body: object.body)
        #expect(Self.brokenInvariant(ops)?.invariant == .keyInParentHoldsMakeOp)
    }

    @Test("a text that measures like a list")
    func textWidth() throws {
        var (ops, index) = try Self.opSet(of: Self.builtDocument(), object: "text")
        ops.sequences[Int(ops.objects[index].body)] = SequenceTree(width: WidthRule(isText: false, encoding: ops.encoding))
        #expect(Self.brokenInvariant(ops)?.invariant == .contentsMatchKind)
    }

    @Test("an object naming another's body, a body past the end, or a body no object names")
    func bodies() throws {
        let doc = try Self.builtDocument()
        let (ops, list) = try Self.opSet(of: doc, object: "list")
        let (_, text) = try Self.opSet(of: doc, object: "text")
        let (_, map) = try Self.opSet(of: doc, object: "map")
        var shared = ops
        shared.objects[list].body = shared.objects[text].body
        #expect(Self.brokenInvariant(shared)?.invariant == .bodyPerObject)
        var pastTheEnd = ops
        pastTheEnd.objects[map].body = Int32(ops.maps.count)
        #expect(Self.brokenInvariant(pastTheEnd)?.invariant == .bodyPerObject)
        var unowned = ops
        unowned.maps.append(MapEntries())
        #expect(Self.brokenInvariant(unowned)?.invariant == .bodyPerObject)
    }

    @Test("ops above the max op")
    func maxOp() throws {
        var (ops, _) = try Self.opSet(of: Self.builtDocument(), object: "map")
        ops.maxOp = 3
        #expect(Self.brokenInvariant(ops)?.invariant == .opIdKnown)
    }

    @Test("conflicting ops, or successors, out of op id order")
    func order() throws {
        var (ops, _) = try Self.opSet(of: Self.builtDocument(), object: "map")
        let key = try #require(ops.maps[0].keys.firstIndex(of: MapKey("x")))
        #expect(ops.maps[0][opsAt: key].count == 2)
        var swapped = ops
        swapped.maps[0][opsAt: key].swapAt(0, 1)
        #expect(Self.brokenInvariant(swapped)?.invariant == .opsSorted)
        let ids = ops.maps[0][opsAt: key].map(\.id)
        ops.maps[0][opsAt: key][0].successors = SuccessorList(sorted: [Successor(id: ids[1]), Successor(id: ids[0])])
        #expect(Self.brokenInvariant(ops)?.invariant == .opsSorted)
    }

    @Test("an element update stored under another element")
    func misplacedUpdate() throws {
        var (ops, index) = try Self.opSet(of: Self.builtDocument(), object: "list")
        let body = Int(ops.objects[index].body)
        let first = try #require(ops.sequences[body].startLocation)
        let second = try #require(ops.sequences[body].successor(of: first))
        let stranger = ops.sequences[body][second].id
        let update = Op(id: OpId(counter: UInt32(ops.maxOp), actor: 0), action: .set, insert: false,
                        key: .element(stranger), value: .int(9))
        ops.sequences[body].modify(at: first) { $0.updates.append(update) }
        let violation = try #require(Self.brokenInvariant(ops))
        #expect(violation.invariant == .opStoredUnderItsKey)
        #expect(violation.structure.hasSuffix("(list, at \(index))"))
    }

    #if DEBUG
    @Test("with checks switched on, a document call that leaves an invariant broken reports it")
    func checksAfterEveryCall() async throws {
        let doc = try Self.builtDocument()
        await confirmation("the broken invariant is reported") { reported in
            InvariantChecks.$onViolation.withValue({ violation in
                #expect(violation.invariant == .opIdKnown)
                reported()
            }) {
                doc.locked { $0.ops.maxOp = 3 }
            }
        }
    }
    #endif
}
