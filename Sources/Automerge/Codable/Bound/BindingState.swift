/// Where a bound type's value lives: a place in a document once bound, the
/// instance's own value until then.
///
/// ``AutomergeText`` (bound to a Text object) and ``Counter`` (bound to the
/// slot of a counter) keep this state the same way. Instances are shared
/// across threads, and the encoder binds them while models read them, so
/// every read and change of the state holds one lock.
final class BindingState<Place: Equatable, Value>: @unchecked Sendable {
    private let lock = Lock()
    private var doc: Document?
    private var place: Place?
    private var unbound: Value
    /// What the unbound value becomes on binding, when the value moves into the document.
    private let empty: Value

    /// Unbound, holding `value`.
    init(unbound value: Value, empty: Value) {
        unbound = value
        self.empty = empty
    }

    /// Bound to `place` of `doc`, as decoding finds it.
    init(doc: Document, place: Place, empty: Value) {
        self.doc = doc
        self.place = place
        unbound = empty
        self.empty = empty
    }

    /// Whether the instance reads and writes a document.
    var isBound: Bool { lock.withLock { doc != nil } }

    /// The document and place, when bound.
    var binding: (doc: Document, place: Place)? {
        lock.withLock {
            guard let doc, let place else { return nil }
            return (doc, place)
        }
    }

    /// The binding and the unbound value, read together.
    var snapshot: (binding: (doc: Document, place: Place)?, unbound: Value) {
        lock.withLock {
            guard let doc, let place else { return (nil, unbound) }
            return ((doc, place), unbound)
        }
    }

    /// The value held while unbound.
    var unboundValue: Value { lock.withLock { unbound } }

    /// Changes the value held while unbound.
    func updateUnbound(_ change: (inout Value) -> Void) {
        lock.withLock { change(&unbound) }
    }

    /// Binds to `place` of `doc`, whose value is already there.
    func attach(doc: Document, place: Place) {
        lock.withLock {
            self.doc = doc
            self.place = place
            unbound = empty
        }
    }

    /// Forgets the document; the unbound value becomes `keep` applied to it
    /// (the lock held, so nothing binds in between).
    func unbind(keeping keep: (Value) -> Value = { $0 }) {
        lock.withLock {
            unbound = keep(unbound)
            doc = nil
            place = nil
        }
    }

    /// Whether the instance is bound to `place` of `doc`.
    func isBound(to doc: Document, place: Place) -> Bool {
        lock.withLock { self.doc === doc && self.place == place }
    }

    /// Whether the instance is bound to a document other than `doc`. The
    /// encoder (re)binds instances that are unbound or bound to the document
    /// it writes, so that an instance follows its value when a list is reordered.
    func isBound(toOtherThan doc: Document) -> Bool {
        lock.withLock { self.doc != nil && self.doc !== doc }
    }
}
