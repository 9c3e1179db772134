import Automerge

/// A reproducible sequence of edits on one or more peers: the input of the
/// op-generation conformance check (format: `Vectors/README.md`, "Edit
/// scripts"). Two implementations that run the same script must produce the
/// same changes, byte for byte.
public struct EditScript: Sendable, Equatable {
    /// A document that exists when the script starts.
    public struct Peer: Sendable, Equatable {
        /// How steps name it.
        public var name: String
        /// Its actor id.
        public var actor: [UInt8]
        /// The time its commits are stamped with unless a `commit` step says otherwise.
        public var time: Int64

        public init(name: String, actor: [UInt8], time: Int64) {
            self.name = name
            self.actor = actor
            self.time = time
        }
    }

    /// One element of a path from the root to an object.
    public enum PathElement: Sendable, Equatable {
        case key(String)
        case index(UInt64)
    }

    /// Where in a map or list a put, delete or increment acts.
    public enum Place: Sendable, Equatable {
        case key(String)
        case index(UInt64)
    }

    /// What a step does.
    public enum Action: Sendable, Equatable {
        case put(obj: [PathElement], at: Place, value: ScalarValue)
        case putObject(obj: [PathElement], at: Place, type: ObjType)
        case insert(obj: [PathElement], index: UInt64, value: ScalarValue)
        case insertObject(obj: [PathElement], index: UInt64, type: ObjType)
        case delete(obj: [PathElement], at: Place)
        case increment(obj: [PathElement], at: Place, by: Int64)
        case splice(obj: [PathElement], index: UInt64, delete: Int64, values: [ScalarValue])
        case spliceText(obj: [PathElement], index: UInt64, delete: Int64, text: String)
        case updateText(obj: [PathElement], text: String)
        case mark(obj: [PathElement], start: UInt64, end: UInt64, name: String, value: ScalarValue, expand: ExpandMark)
        case unmark(obj: [PathElement], start: UInt64, end: UInt64, name: String, expand: ExpandMark)
        case commit(message: String?, time: Int64?)
        /// A new peer `as`: a copy of the step's peer with actor id `actor`.
        /// It takes the step's peer's time.
        case fork(as: String, actor: [UInt8])
        case merge(from: String)
        /// The step's peer saved (compressed) into a named slot.
        case save(into: String)
        /// The step's peer replaced (or added) by the document of a slot. A
        /// replaced peer keeps its time, an added one takes the time of the
        /// peer that saved the slot.
        case load(from: String, actor: [UInt8])

        /// The name of the action in the JSON form.
        public var name: String {
            switch self {
            case .put: "put"
            case .putObject: "putObject"
            case .insert: "insert"
            case .insertObject: "insertObject"
            case .delete: "delete"
            case .increment: "increment"
            case .splice: "splice"
            case .spliceText: "spliceText"
            case .updateText: "updateText"
            case .mark: "mark"
            case .unmark: "unmark"
            case .commit: "commit"
            case .fork: "fork"
            case .merge: "merge"
            case .save: "save"
            case .load: "load"
            }
        }
    }

    /// An action on a peer (nil: the first peer).
    public struct Step: Sendable, Equatable {
        public var peer: String?
        public var action: Action

        public init(peer: String? = nil, _ action: Action) {
            self.peer = peer
            self.action = action
        }
    }

    /// What running the script must give: the result peer's document.
    public struct Expected: Sendable, Equatable {
        /// Its heads, sorted.
        public var heads: [ChangeHash]
        /// Every change hash, in the order the document applied them.
        public var changes: [ChangeHash]
        /// Its canonical dump.
        public var dump: JSONValue

        public init(heads: [ChangeHash], changes: [ChangeHash], dump: JSONValue) {
            self.heads = heads
            self.changes = changes
            self.dump = dump
        }
    }

    /// What the script exercises, in words.
    public var description: String
    public var peers: [Peer]
    public var steps: [Step]
    /// The peer whose document the script leaves (nil: the first peer).
    public var result: String?
    public var expected: Expected?

    public init(description: String, peers: [Peer], steps: [Step], result: String? = nil, expected: Expected? = nil) {
        self.description = description
        self.peers = peers
        self.steps = steps
        self.result = result
        self.expected = expected
    }

    /// The same script ending after its first `count` steps.
    public func prefix(_ count: Int) -> EditScript {
        EditScript(description: description, peers: peers, steps: Array(steps.prefix(count)), result: result)
    }
}

/// Why a script cannot be read or run; `step` is 1-based, nil for the script as a whole.
public struct EditScriptError: Error, Equatable, CustomStringConvertible, Sendable {
    public var step: Int?
    public var reason: String

    public init(step: Int?, _ reason: String) {
        self.step = step
        self.reason = reason
    }

    public var description: String { step.map { "step \($0): \(reason)" } ?? reason }
}
