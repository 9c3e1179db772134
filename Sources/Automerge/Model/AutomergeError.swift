/// Errors from document operations. Each case says what was wrong so callers
/// can switch on it.
///
/// A call that throws leaves the document unchanged: its heads, its pending
/// (uncommitted) edits and the bytes it saves are exactly as before. Edits
/// check everything that can fail before their first op (a splice checks
/// its bounds and that all its ops fit below the op counter limit);
/// received changes (`applyEncodedChanges`, `merge`) are all checked before
/// any is applied, and only then are pending edits committed; the Codable
/// encoder plans every write and checks the plan first.
public enum AutomergeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The object id does not name an object of this document.
    case unknownObject(ObjId)
    /// The operation does not apply to an object of this type (a key on a
    /// list, an index on a map, text editing on a list, ...).
    case wrongObjectType(ObjId, ObjType, operation: String)
    /// An index past the end of a list or text.
    case indexOutOfBounds(index: UInt64, length: UInt64)
    /// `increment` where no current value is a counter.
    case notACounter(ObjId, Prop)
    /// Heads that name a change this document does not have.
    case unknownHeads([ChangeHash])
    /// A cursor that does not belong to this object or cannot be parsed.
    case invalidCursor(String)
    /// A path string that does not parse or does not lead to an object.
    case invalidPath(String)
    /// A change reuses an (actor, sequence number) pair with different contents.
    case duplicateSequenceNumber(actor: ActorId, sequence: UInt64)
    /// A change refers to an object or list element that does not exist.
    case invalidChange(String)
    /// The document ran out of op counters (Automerge limits them to 2^32-1).
    case opCounterOverflow
    /// Bytes that do not load; the `LoadError` says where and why.
    case load(LoadError)
    /// A file of changes whose dependencies are not all present.
    case missingDependencies([ChangeHash])

    /// A readable explanation.
    public var description: String {
        switch self {
        case .unknownObject(let obj): return "unknown object \(obj)"
        case .wrongObjectType(let obj, let type, let operation): return "\(operation) does not apply to \(obj), a \(type)"
        case .indexOutOfBounds(let index, let length): return "index \(index) is out of bounds (length \(length))"
        case .notACounter(let obj, let prop): return "no counter at \(prop) in \(obj)"
        case .unknownHeads(let hashes): return "unknown heads: \(hashes.map(\.description).joined(separator: ", "))"
        case .invalidCursor(let why): return "invalid cursor: \(why)"
        case .invalidPath(let why): return "invalid path: \(why)"
        case .duplicateSequenceNumber(let actor, let seq): return "duplicate sequence number \(seq) for actor \(actor.hexString)"
        case .invalidChange(let why): return "invalid change: \(why)"
        case .opCounterOverflow: return "op counter overflow"
        case .load(let error): return "load failed: \(error)"
        case .missingDependencies(let hashes): return "missing dependencies: \(hashes.map(\.description).joined(separator: ", "))"
        }
    }
}
