import Foundation
import Testing
@_spi(Conformance) @testable import Automerge

/// An op the op set refuses leaves it exactly as it was: every refusal is
/// decided before anything changes. Received changes rely on it (their
/// ops apply only after the whole batch has passed ``ChangeChecker``, and
/// the application itself cannot fail, see `DocumentState.apply`), and so
/// do local edits, which apply op by op.
@Suite("Op set: a refused op changes nothing")
struct RefusedOpTests {
    /// A document's state: the root holds a map at "map" (op 1), a list at
    /// "list" (op 2) with one element (op 3). Actor index 0.
    func fixture() throws -> DocumentState {
        let doc = Document.peer(0x01)
        _ = try doc.putObject(obj: .ROOT, key: "map", ty: .Map)
        let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        try doc.insert(obj: list, index: 0, value: .Int(1))
        doc.commitChange()
        return doc.locked { $0 }
    }

    /// Ids of the fixture: actor 0's op `counter`.
    func op(_ counter: UInt32) -> OpId { OpId(counter: counter, actor: 0) }

    func put(_ key: String, in object: OpId, id: UInt32, makes kind: ObjectKind? = nil) -> ChangeOp {
        ChangeOp(id: op(id), object: object, key: .map(MapKey(key)), insert: false,
                 action: kind.map(Self.makeAction) ?? .set, value: kind == nil ? .int(7) : .null, predecessors: [])
    }

    static func makeAction(_ kind: ObjectKind) -> OpAction {
        switch kind {
        case .map: .makeMap
        case .list: .makeList
        case .text: .makeText
        case .table: .makeTable
        }
    }

    /// Every kind of refusal the op set makes, with the error it must throw.
    var refused: [(what: String, op: ChangeOp, error: OpSet.ApplyError)] {
        let list = op(2), element = op(3), missing = op(90)
        return [
            ("an object whose id is taken", put("again", in: .root, id: 1, makes: .map), .duplicateObject(op(1))),
            ("a map key in a list", put("key", in: list, id: 10), .notAMap(list)),
            ("an element in a map", ChangeOp(id: op(11), object: .root, key: .element(element), insert: true, action: .set,
                                             value: .int(1), predecessors: []), .notASequence(.root)),
            ("an insert after a missing element", ChangeOp(id: op(12), object: list, key: .element(missing), insert: true,
                                                           action: .set, value: .int(1), predecessors: []), .missingElement(missing)),
            ("an update of a missing element", ChangeOp(id: op(13), object: list, key: .element(missing), insert: false,
                                                        action: .set, value: .int(1), predecessors: [missing]), .missingElement(missing)),
            ("an op on a missing object", put("key", in: missing, id: 14), .missingObject(missing)),
        ]
    }

    @Test("each refusal throws its error and leaves the op set, max op included, as it was")
    func refusalsChangeNothing() throws {
        for (what, op, error) in refused {
            var state = try fixture()
            let saved = state.save(compress: false), maxOp = state.ops.maxOp, objects = state.ops.objects.count
            #expect(throws: error, "\(what)") { try state.ops.apply(op) }
            #expect(state.save(compress: false) == saved, "\(what): the op set changed")
            #expect(state.ops.maxOp == maxOp, "\(what): the max op changed")
            #expect(state.ops.objects.count == objects, "\(what): an object was added")
            try state.ops.checkInvariants()
        }
    }

    @Test("an op the checker passed applies through the path that cannot fail")
    func checkedOpApplies() throws {
        var state = try fixture()
        #expect(state.ops.apply(checked: put("new", in: .root, id: 20, makes: .list)) == nil)
        #expect(state.ops.maxOp == 20)
        #expect(state.ops.objectIndex(of: op(20)) != nil)
        try state.ops.checkInvariants()
    }
}
