#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Combine)
import Combine
#endif

/// An Automerge document: a JSON-like tree of maps, lists, text, counters
/// and scalars that many peers edit concurrently and merge without conflicts.
///
/// Source-compatible with automerge-swift's `Document`. Edits go into an
/// implicit transaction that is committed when you call ``commitWith(message:timestamp:)``,
/// read ``heads()``, save, fork or merge. A `Document` is safe to use from
/// many threads: every call holds an internal lock.
public final class Document: @unchecked Sendable {
    private let lock = Lock()
    /// Read and written only through ``locked(_:)`` (hence private), whose
    /// lock already makes every access exclusive, so Swift's dynamic
    /// exclusivity check, a tenth of typing a character, is switched off.
    @exclusivity(unchecked) private var state: DocumentState
    /// Every registered observer, called in turn (nil: none); guarded by `lock`.
    @exclusivity(unchecked) private var changeObserver: (@Sendable () -> Void)?
    /// The registered observers by token; guarded by `lock`.
    private var changeObservers: [UInt64: @Sendable () -> Void] = [:]
    private var nextObserverToken: UInt64 = 0
    #if canImport(Combine)
    /// Behind `objectDidChange` (Document+Observation.swift).
    let didChangeSubject = PassthroughSubject<(), Never>()
    #endif
    /// How much the Codable layer reports about path lookups in this
    /// document (`.tracing` reports each one, on standard error).
    let logLevel: LogVerbosity

    /// A new, empty document with a random actor.
    /// - Parameters:
    ///   - textEncoding: The unit of text positions and lengths.
    ///   - logLevel: How much the Codable layer reports about this document.
    public init(textEncoding: TextEncoding = .unicodeScalar, logLevel: LogVerbosity = .errorOnly) {
        state = DocumentState(actor: ActorId(), encoding: textEncoding)
        self.logLevel = logLevel
    }

    init(state: DocumentState, logLevel: LogVerbosity = .errorOnly) {
        self.state = state
        self.logLevel = logLevel
        state.ops.checkInvariantsIfEnabled()  // a loaded or forked document; debug builds, see InvariantChecks
    }

    /// ``locked(_:)`` for calls that change the document: observers hear
    /// before and after (`objectWillChange`, `objectDidChange`, where
    /// Combine exists), outside the lock, so that they can read the document.
    ///
    /// The change observer (``observeChanges(_:)``) is read under the same
    /// lock, so that a document nobody observes pays one load for it.
    func changing<T, E: Error>(_ body: (inout DocumentState) throws(E) -> T) throws(E) -> T {
        announceWillChange()
        lock.lock()
        let observer = changeObserver
        defer {
            state.ops.checkInvariantsIfEnabled()  // after every call; debug builds, see InvariantChecks
            lock.unlock()
            announceDidChange()
            observer?()
        }
        return try body(&state)
    }

    /// Calls `observer` after each call that changed (or tried to change)
    /// the document, on the thread that made it, once the lock is released;
    /// until the returned token is passed to ``stopObservingChanges(_:)``.
    /// On every platform, unlike `objectDidChange`, which needs Combine.
    @_spi(Observation) public func observeChanges(_ observer: @escaping @Sendable () -> Void) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        nextObserverToken += 1
        changeObservers[nextObserverToken] = observer
        rebuildChangeObserver()
        return nextObserverToken
    }

    /// Stops calling the observer that ``observeChanges(_:)`` returned `token` for.
    @_spi(Observation) public func stopObservingChanges(_ token: UInt64) {
        lock.lock()
        defer { lock.unlock() }
        changeObservers[token] = nil
        rebuildChangeObserver()
    }

    /// Makes `changeObserver` call every registered observer; the caller holds the lock.
    private func rebuildChangeObserver() {
        let observers = Array(changeObservers.values)
        switch observers.count {
        case 0: changeObserver = nil
        case 1: changeObserver = observers[0]
        default: changeObserver = { for observer in observers { observer() } }
        }
    }

    /// Runs `body` with exclusive access to the state.
    func locked<T, E: Error>(_ body: (inout DocumentState) throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        defer { state.ops.checkInvariantsIfEnabled() }  // after every call; debug builds, see InvariantChecks
        return try body(&state)
    }

    /// The actor this document writes as. Setting it commits pending edits first.
    public var actor: ActorId {
        get { locked { $0.actor } }
        set {
            locked { state in
                state.commit()
                state.actor = newValue
            }
        }
    }

    /// The unit in which this document counts text positions and lengths.
    public var textEncoding: TextEncoding { locked { $0.encoding } }

    // MARK: Writing maps

    /// Sets `key` in the map `obj` to a scalar value.
    public func put(obj: ObjId, key: String, value: ScalarValue) throws {
        try changing { state throws(AutomergeError) in _ = try state.put(obj, key: key, action: .set, value: Primitive(value)) }
    }

    /// Sets `key` in the map `obj` to a new, empty object and returns its id.
    public func putObject(obj: ObjId, key: String, ty: ObjType) throws -> ObjId {
        try changing { state throws(AutomergeError) in
            let id = try state.put(obj, key: key, action: ObjectKind(ty).makeAction, value: .null)
            return state.ops.objId(id!)
        }
    }

    /// Removes `key` from the map `obj` (no change if absent).
    public func delete(obj: ObjId, key: String) throws {
        try changing { state throws(AutomergeError) in _ = try state.put(obj, key: key, action: .delete, value: .null) }
    }

    /// Adds `by` to the counter at `key`.
    public func increment(obj: ObjId, key: String, by: Int64) throws {
        try changing { state throws(AutomergeError) in _ = try state.put(obj, key: key, action: .increment, value: .int(by)) }
    }

    // MARK: Writing lists and text

    /// Replaces the element at `index` of the list `obj`.
    public func put(obj: ObjId, index: UInt64, value: ScalarValue) throws {
        try changing { state throws(AutomergeError) in _ = try state.put(obj, index: index, action: .set, value: Primitive(value)) }
    }

    /// Replaces the element at `index` of the list `obj` with a new object.
    public func putObject(obj: ObjId, index: UInt64, ty: ObjType) throws -> ObjId {
        try changing { state throws(AutomergeError) in
            // Only the kind is kept: a live `ObjectState` copy would make the put below copy the whole list.
            let kind = try state.object(obj).kind
            guard kind == .list else { throw .wrongObjectType(obj, kind.publicType, operation: "putObject at an index") }
            let id = try state.put(obj, index: index, action: ObjectKind(ty).makeAction, value: .null)
            return state.ops.objId(id!)
        }
    }

    /// Inserts a scalar at `index` of a list or text.
    public func insert(obj: ObjId, index: UInt64, value: ScalarValue) throws {
        try changing { state throws(AutomergeError) in _ = try state.insert(obj, index: index, action: .set, value: Primitive(value)) }
    }

    /// Inserts a new, empty object at `index` of the list `obj` and returns its id.
    public func insertObject(obj: ObjId, index: UInt64, ty: ObjType) throws -> ObjId {
        try changing { state throws(AutomergeError) in
            let id = try state.insert(obj, index: index, action: ObjectKind(ty).makeAction, value: .null)
            return state.ops.objId(id)
        }
    }

    /// Deletes the element at `index` of a list or text.
    public func delete(obj: ObjId, index: UInt64) throws {
        try changing { state throws(AutomergeError) in try state.delete(obj, index: index) }
    }

    /// Adds `by` to the counter at `index`.
    public func increment(obj: ObjId, index: UInt64, by: Int64) throws {
        try changing { state throws(AutomergeError) in _ = try state.put(obj, index: index, action: .increment, value: .int(by)) }
    }

    /// Deletes `delete` elements at `start` (before it, if negative) and inserts `values` there.
    public func splice(obj: ObjId, start: UInt64, delete: Int64, values: [ScalarValue]) throws {
        try changing { state throws(AutomergeError) in try state.splice(obj, start: start, delete: delete, values: values.map(Primitive.init)) }
    }

    /// Deletes `delete` units of text at `start` and inserts `value` there.
    public func spliceText(obj: ObjId, start: UInt64, delete: Int64, value: String? = nil) throws {
        try changing { state throws(AutomergeError) in try state.spliceText(obj, start: start, delete: delete, text: value ?? "") }
    }

    /// Changes the text `obj` to `value` with the fewest edits (a diff over
    /// grapheme clusters, as Rust's `update_text`).
    public func updateText(obj: ObjId, value: String) throws {
        try changing { state throws(AutomergeError) in try state.updateText(obj, to: value) }
    }

    /// Marks `start..<end` of the text `obj` with `name` = `value`; a null value removes the mark.
    public func mark(obj: ObjId, start: UInt64, end: UInt64, expand: ExpandMark, name: String, value: ScalarValue) throws {
        try changing { state throws(AutomergeError) in
            try state.mark(obj, start: start, end: end, expand: expand, name: name, value: Primitive(value))
        }
    }
}
