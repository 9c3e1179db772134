import Foundation
import Testing
@_spi(Conformance) @testable import Automerge

// Fixtures and checks for AtomicFailureTests: documents with history and
// pending edits, an exact image of what a failed call must leave as it
// was, and the check that the document still works afterwards.

/// Everything a failed call must leave as it was, read without committing:
/// the heads, the open transaction (its ops, and the change its commit
/// would make, which fixes their ids, predecessors, dependencies and
/// sequence number) and the bytes a save would write (every op, pending
/// edits and queued changes included).
struct DocumentImage: Equatable {
    var heads: Set<ChangeHash>
    var pendingOps: [String]
    var pendingChange: [UInt8]?
    var savedBytes: [UInt8]

    init(_ doc: Document) {
        heads = doc.locked { $0.history.heads }
        pendingOps = doc.pendingOps
        pendingChange = doc.locked { $0.pendingChange()?.bytes }
        savedBytes = doc.locked { state in
            var copy = state
            copy.commit()
            return copy.save(compress: false)
        }
    }
}

/// A document with committed history (a map, a list [1, 2, 3], a text
/// "hello" and a counter at the root) and seven pending ops (`pending` =
/// true, " world" appended to the text).
struct EditedDocument {
    let doc: Document
    let map: ObjId
    let list: ObjId
    let text: ObjId

    /// With `roomLeft`, an empty change from another peer raises the max op
    /// first, so that with the pending edits exactly `roomLeft` more local
    /// ops fit below the op counter limit (2^32 - 1).
    init(roomLeft: UInt64? = nil) throws {
        doc = Document.peer(0x01)
        map = try doc.putObject(obj: .ROOT, key: "map", ty: .Map)
        list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.put(obj: map, key: "k", value: .String("v"))
        try doc.splice(obj: list, start: 0, delete: 0, values: [.Int(1), .Int(2), .Int(3)])
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "hello")
        try doc.put(obj: .ROOT, key: "count", value: .Counter(1))
        doc.commitChange(message: "first")
        try doc.put(obj: map, key: "k2", value: .Int(2))
        doc.commitChange(message: "second")
        let pendingOpCount: UInt64 = 7
        if let roomLeft {
            let startOp = maxOpCounter - pendingOpCount - roomLeft + 1
            let raise = ChangeChunk.encode(StoredChange(
                dependencies: doc.heads().sorted(), actors: [actorId(0x0e)], sequence: 1, startOp: startOp,
                time: 0, message: nil, ops: [], extraBytes: [])).bytes
            try doc.applyEncodedChanges(encoded: Data(raise))
        }
        try doc.put(obj: .ROOT, key: "pending", value: .Boolean(true))
        try doc.spliceText(obj: text, start: 5, delete: 0, value: " world")
        #expect(doc.pendingOpCount == Int(pendingOpCount))
        if let roomLeft { #expect(doc.locked { $0.opCountersLeft } == roomLeft) }
    }
}

/// Runs `body`, expects it to throw an `E` that `matches`, and expects the
/// document's ``DocumentImage`` to be exactly as before.
func expectRefused<E: Error>(
    _ doc: Document, _ what: Comment, throwing _: E.Type,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void, _ matches: (E) -> Bool
) {
    let before = DocumentImage(doc)
    #expect(!before.pendingOps.isEmpty, "the fixture has pending ops to lose", sourceLocation: sourceLocation)
    let error = #expect(throws: E.self, what, sourceLocation: sourceLocation) { try body() }
    if let error { #expect(matches(error), "\(what): unexpected \(error)", sourceLocation: sourceLocation) }
    let after = DocumentImage(doc)
    #expect(after.heads == before.heads, "\(what) changed the heads", sourceLocation: sourceLocation)
    #expect(after.pendingOps == before.pendingOps, "\(what) changed the pending ops", sourceLocation: sourceLocation)
    #expect(after.pendingChange == before.pendingChange, "\(what) changed the pending change", sourceLocation: sourceLocation)
    #expect(after.savedBytes == before.savedBytes, "\(what) changed the saved bytes", sourceLocation: sourceLocation)
}

/// The same for an ``AutomergeError`` that `matches`.
func expectRefused(_ doc: Document, _ what: Comment, sourceLocation: SourceLocation = #_sourceLocation,
                   _ body: () throws -> Void, _ matches: (AutomergeError) -> Bool) {
    expectRefused(doc, what, throwing: AutomergeError.self, sourceLocation: sourceLocation, body, matches)
}

/// The same for an ``AutomergeError`` known exactly.
func expectRefused(_ doc: Document, _ what: Comment, with expected: AutomergeError,
                   sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    expectRefused(doc, what, throwing: AutomergeError.self, sourceLocation: sourceLocation, body) { $0 == expected }
}

/// Whether an error is `invalidChange` with a reason containing `text`.
func isInvalidChange(_ text: String) -> (AutomergeError) -> Bool {
    { error in
        if case .invalidChange(let why) = error { return why.contains(text) }
        return false
    }
}

/// After refused calls: `edit` (which must succeed) changes the image, and
/// the document commits, saves and loads back with the same heads and ops.
func expectStillWorks(_ doc: Document, sourceLocation: SourceLocation = #_sourceLocation, _ edit: () throws -> Void) throws {
    let before = DocumentImage(doc)
    try edit()
    #expect(DocumentImage(doc) != before, "the edit shows in the image", sourceLocation: sourceLocation)
    doc.commitChange()
    let loaded = try Document(doc.save())
    #expect(loaded.heads() == doc.heads(), sourceLocation: sourceLocation)
    #expect(loaded.save(compress: false) == doc.save(compress: false), sourceLocation: sourceLocation)
}

/// The chunk of one change by `actor` (sequence `sequence`, ops from
/// `startOp`), built field by field so that it can be wrong in any way.
func changeChunk(_ ops: [StoredOp], actor: ActorId, sequence: UInt64 = 1, startOp: UInt64,
                 dependencies: Set<ChangeHash>) -> [UInt8] {
    ChangeChunk.encode(StoredChange(dependencies: dependencies.sorted(), actors: [actor], sequence: sequence,
                                    startOp: startOp, time: 0, message: nil, ops: ops, extraBytes: [])).bytes
}

/// A put of `value` to `key` of the map `object` (nil: the root).
func storedPut(_ key: String, _ value: Primitive, in object: StoredOpId? = nil) -> StoredOp {
    StoredOp(object: object, key: .map(key), insert: false, action: 1, value: value, predecessors: [],
             id: nil, successors: [], expand: false, markName: nil)
}

/// A map of `depth` maps nested under key "a", from the root: the deepest
/// is at ``OpSet/maxDepth`` when `depth` is that, and holds no objects.
func nestedMaps(_ doc: Document, depth: Int) throws -> ObjId {
    var obj = ObjId.ROOT
    for _ in 0..<depth { obj = try doc.putObject(obj: obj, key: "a", ty: .Map) }
    return obj
}
