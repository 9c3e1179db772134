#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Document {
    // MARK: Maps

    /// The value at `key` of the map `obj` (the winner if there is a conflict).
    public func get(obj: ObjId, key: String) throws -> Value? {
        try concurrentValues(obj: obj, at: .Key(key), heads: nil).last
    }

    /// The value at `key` as it was at `heads`.
    public func getAt(obj: ObjId, key: String, heads: Set<ChangeHash>) throws -> Value? {
        try concurrentValues(obj: obj, at: .Key(key), heads: heads).last
    }

    /// Every concurrent value at `key` (more than one after a conflict).
    public func getAll(obj: ObjId, key: String) throws -> Set<Value> {
        Set(try concurrentValues(obj: obj, at: .Key(key), heads: nil))
    }

    /// Every concurrent value at `key` as it was at `heads`.
    public func getAllAt(obj: ObjId, key: String, heads: Set<ChangeHash>) throws -> Set<Value> {
        Set(try concurrentValues(obj: obj, at: .Key(key), heads: heads))
    }

    // MARK: Lists

    /// The element at `index` of a list or text, nil past the end.
    public func get(obj: ObjId, index: UInt64) throws -> Value? {
        try concurrentValues(obj: obj, at: .Index(index), heads: nil).last
    }

    /// The element at `index` as it was at `heads`.
    public func getAt(obj: ObjId, index: UInt64, heads: Set<ChangeHash>) throws -> Value? {
        try concurrentValues(obj: obj, at: .Index(index), heads: heads).last
    }

    /// Every concurrent value of the element at `index`.
    public func getAll(obj: ObjId, index: UInt64) throws -> Set<Value> {
        Set(try concurrentValues(obj: obj, at: .Index(index), heads: nil))
    }

    /// Every concurrent value of the element at `index` as it was at `heads`.
    public func getAllAt(obj: ObjId, index: UInt64, heads: Set<ChangeHash>) throws -> Set<Value> {
        Set(try concurrentValues(obj: obj, at: .Index(index), heads: heads))
    }

    /// Every concurrent value at `prop` of `obj` as it was at `heads` (nil:
    /// now), the winner last: what the key and index getters above read.
    private func concurrentValues(obj: ObjId, at prop: Prop, heads: Set<ChangeHash>?) throws(AutomergeError) -> [Value] {
        try locked { state throws(AutomergeError) in
            let clock = try state.clock(heads)
            let ops = switch prop {
            case .Key(let key): try state.get(obj, key: key, heads: heads)
            case .Index(let index): try state.get(obj, index: index, heads: heads)
            }
            return ops.map { state.ops.value(of: $0, at: clock) }
        }
    }

    // MARK: Whole objects

    /// The keys of the map `obj` with a value, sorted by their UTF-8 bytes.
    public func keys(obj: ObjId) -> [String] {
        (try? locked { state throws(AutomergeError) in try state.keys(obj, heads: nil) }) ?? []
    }

    /// The keys of `obj` as they were at `heads`.
    public func keysAt(obj: ObjId, heads: Set<ChangeHash>) -> [String] {
        (try? locked { state throws(AutomergeError) in try state.keys(obj, heads: heads) }) ?? []
    }

    /// The values of a list, or of a map in key order.
    public func values(obj: ObjId) throws -> [Value] {
        try locked { state throws(AutomergeError) in try state.values(obj, heads: nil) }
    }

    /// The values of `obj` as they were at `heads`.
    public func valuesAt(obj: ObjId, heads: Set<ChangeHash>) throws -> [Value] {
        try locked { state throws(AutomergeError) in try state.values(obj, heads: heads) }
    }

    /// The key-value pairs of the map `obj`, in key order.
    public func mapEntries(obj: ObjId) throws -> [(String, Value)] {
        try locked { state throws(AutomergeError) in try state.mapEntries(obj, heads: nil) }
    }

    /// The key-value pairs of the map `obj` as they were at `heads`.
    public func mapEntriesAt(obj: ObjId, heads: Set<ChangeHash>) throws -> [(String, Value)] {
        try locked { state throws(AutomergeError) in try state.mapEntries(obj, heads: heads) }
    }

    /// The number of keys of a map, elements of a list, or text units of a text (0 for an unknown object).
    public func length(obj: ObjId) -> UInt64 {
        locked { state in state.length(obj) } ?? 0
    }

    /// The length of `obj` as it was at `heads`.
    public func lengthAt(obj: ObjId, heads: Set<ChangeHash>) -> UInt64 {
        (try? locked { state throws(AutomergeError) in try state.length(obj, heads: heads) }) ?? 0
    }

    /// The type of `obj`; `.Map` for the root.
    ///
    /// automerge-swift's signature, which cannot fail: an id that names no
    /// object of this document reads as `.Map`, as it reads as an empty map
    /// everywhere else (`keys`, `length`). ``checkedObjectType(obj:)`` throws for it instead.
    public func objectType(obj: ObjId) -> ObjType {
        (try? checkedObjectType(obj: obj)) ?? .Map
    }

    /// The type of `obj`; throws ``AutomergeError/unknownObject(_:)`` for an
    /// id that names no object of this document.
    public func checkedObjectType(obj: ObjId) throws -> ObjType {
        try locked { state throws(AutomergeError) in try state.object(obj).kind.publicType }
    }

    // MARK: Text

    /// The text of the text object `obj`.
    public func text(obj: ObjId) throws -> String {
        try locked { state throws(AutomergeError) in try state.text(obj, heads: nil) }
    }

    /// The text of `obj` as it was at `heads`.
    public func textAt(obj: ObjId, heads: Set<ChangeHash>) throws -> String {
        try locked { state throws(AutomergeError) in try state.text(obj, heads: heads) }
    }

    /// The marks of the text `obj`.
    public func marks(obj: ObjId) throws -> [Mark] {
        try marks(obj: obj, heads: nil)
    }

    /// The marks of the text `obj` as they were at `heads`.
    public func marksAt(obj: ObjId, heads: Set<ChangeHash>) throws -> [Mark] {
        try marks(obj: obj, heads: heads)
    }

    /// The marks that cover `position` of the text `obj`, each as the empty range at that position, by name.
    public func marksAt(obj: ObjId, position: Position) throws -> [Mark] {
        try marksCovering(obj: obj, position: position, heads: nil)
    }

    /// The marks that covered `position` at `heads`, each as the empty range
    /// at that position (`start == end == position`), by name.
    public func marksAt(obj: ObjId, position: Position, heads: Set<ChangeHash>) throws -> [Mark] {
        try marksCovering(obj: obj, position: position, heads: heads)
    }

    private func marksCovering(obj: ObjId, position: Position, heads: Set<ChangeHash>?) throws -> [Mark] {
        let index: UInt64
        switch position {
        case .index(let value): index = value
        case .cursor(let cursor): index = try resolve(obj: obj, cursor: cursor, heads: heads)
        }
        // As Rust's mark set at one index, and automerge-swift: each mark as the
        // empty range at that index, by name.
        return try marks(obj: obj, heads: heads)
            .filter { $0.start <= index && index < $0.end }
            .map { Mark(start: index, end: index, name: $0.name, value: $0.value) }
            .sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    private func marks(obj: ObjId, heads: Set<ChangeHash>?) throws(AutomergeError) -> [Mark] {
        try locked { state throws(AutomergeError) in
            let object = try state.object(obj)
            guard object.kind == .text else { throw .wrongObjectType(obj, object.kind.publicType, operation: "marks") }
            return state.marks(in: object, at: try state.clock(heads))
        }
    }

    // MARK: Paths

    /// The path from the root to `obj`.
    public func path(obj: ObjId) throws -> [PathElement] {
        try locked { state throws(AutomergeError) in try state.path(obj) }
    }

    // MARK: Cursors

    /// A cursor for `position` of a list or text; at the end, a cursor that stays at the end.
    public func cursor(obj: ObjId, position: UInt64) throws -> Cursor {
        try locked { state throws(AutomergeError) in try state.cursor(obj, position: position, heads: nil) }
    }

    /// A cursor for `position` as the sequence was at `heads`.
    public func cursor(obj: ObjId, position: UInt64, heads: Set<ChangeHash>) throws -> Cursor {
        try locked { state throws(AutomergeError) in try state.cursor(obj, position: position, heads: heads) }
    }

    /// The current index of `cursor`.
    public func position(obj: ObjId, cursor: Cursor) throws -> UInt64 {
        try resolve(obj: obj, cursor: cursor, heads: nil)
    }

    /// The index `cursor` had at `heads`.
    public func position(obj: ObjId, cursor: Cursor, heads: Set<ChangeHash>) throws -> UInt64 {
        try resolve(obj: obj, cursor: cursor, heads: heads)
    }

    /// The name automerge-swift's documentation uses for ``cursor(obj:position:heads:)``.
    public func cursorAt(obj: ObjId, position: UInt64, heads: Set<ChangeHash>) throws -> Cursor {
        try cursor(obj: obj, position: position, heads: heads)
    }

    /// automerge-swift's older name for ``position(obj:cursor:)``.
    public func cursorPosition(obj: ObjId, cursor: Cursor) throws -> UInt64 {
        try resolve(obj: obj, cursor: cursor, heads: nil)
    }

    /// automerge-swift's older name for ``position(obj:cursor:heads:)``.
    public func cursorPositionAt(obj: ObjId, cursor: Cursor, heads: Set<ChangeHash>) throws -> UInt64 {
        try resolve(obj: obj, cursor: cursor, heads: heads)
    }

    private func resolve(obj: ObjId, cursor: Cursor, heads: Set<ChangeHash>?) throws(AutomergeError) -> UInt64 {
        try locked { state throws(AutomergeError) in try state.position(obj, cursor: cursor, heads: heads) }
    }
}
