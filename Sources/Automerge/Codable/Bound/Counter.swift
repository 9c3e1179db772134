#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A counter that many peers change concurrently: their increments add up
/// when documents merge, instead of one write winning.
///
/// Use it as a property of a `Codable` model. Encoding an unbound counter
/// writes its value (as a counter scalar) and binds it; decoding binds the
/// counter to the document. A bound counter's ``increment(by:)`` and
/// ``value`` write straight into the document, so re-encoding the model
/// changes nothing.
///
/// ```swift
/// struct Stats: Codable { var views: Counter }
/// let stats = try AutomergeDecoder(doc: doc).decode(Stats.self)
/// stats.views.increment(by: 1)
/// ```
///
/// A counter in a list is bound to its index; if elements are inserted or
/// removed before it, decode the model again to rebind.
public final class Counter: Codable, @unchecked Sendable {
    private let state: BindingState<ValueSlot, Int>

    /// An unbound counter with `initialValue`.
    public init(_ initialValue: Int = 0) {
        state = BindingState(unbound: initialValue, empty: 0)
    }

    /// A counter bound to the counter at `path` (see ``bind(doc:path:)-(_,String)``).
    public convenience init(_ initialValue: Int = 0, doc: Document, path: String) throws {
        self.init(initialValue)
        try bind(doc: doc, path: path)
    }

    /// A counter bound to the counter at `key` (a map key or list index) of `objId`.
    /// - Throws: ``BindingError/NotCounter`` if there is no counter there.
    public convenience init(doc: Document, objId: ObjId, key: any CodingKey) throws {
        self.init()
        let slot: ValueSlot = if let index = key.intValue { .index(objId, UInt64(index)) } else { .key(objId, key.stringValue) }
        guard case .Scalar(.Counter)? = try doc.value(at: slot) else { throw BindingError.NotCounter }
        attach(doc: doc, slot: slot)
    }

    /// Whether the counter reads and writes a document.
    public var isBound: Bool { state.isBound }

    /// Binds to the counter at a dot-separated `path`, such as `.stats.views`.
    /// See ``bind(doc:path:)-(_,[AnyCodingKey])``.
    public func bind(doc: Document, path: String) throws {
        try bind(doc: doc, path: BindingPlace.keys(path))
    }

    /// Binds to the counter at `path`. If a counter is there, the instance's
    /// unbound value is added to it as an increment (so changes made before
    /// binding are kept); if nothing is there, a counter with that value is
    /// created, along with missing maps and lists on the way.
    /// - Throws: ``BindingError/NotCounter`` if another value is at the path,
    ///   ``BindingError/InvalidPath(_:)`` if the path can't be followed.
    public func bind(doc: Document, path: [AnyCodingKey]) throws {
        switch try BindingPlace(doc: doc, path: path, kind: "a counter") {
        case .existing(.Scalar(.Counter), let slot):
            let pending = state.unboundValue
            if pending != 0 { try doc.increment(at: slot, by: Int64(pending)) }
            attach(doc: doc, slot: slot)
        case .existing:
            throw BindingError.NotCounter
        case .missing(let target):
            attach(doc: doc, slot: try PlanWriter(doc: doc).create(.counter(self), along: target))
        }
    }

    /// The counter's value. Setting a bound counter increments it by the
    /// difference, so concurrent changes from other peers still add up. If the
    /// document rejects a write (the counter was removed), the instance
    /// unbinds and keeps the value (``isBound`` turns false).
    public var value: Int {
        get {
            let (binding, unbound) = state.snapshot
            guard case let (doc, slot)? = binding else { return unbound }
            if case .Scalar(.Counter(let current))? = try? doc.value(at: slot) { return Int(truncatingIfNeeded: current) }
            return unbound
        }
        set {
            let current = value
            if newValue != current { increment(by: newValue &- current) }
        }
    }

    /// Adds `value` (negative to subtract) to the counter.
    public func increment(by value: Int) {
        sendObjectWillChange()
        if case let (doc, slot)? = state.binding {
            do {
                try doc.increment(at: slot, by: Int64(value))
                return
            } catch {
                state.unbind { unbound in self.value(in: doc, at: slot) ?? unbound }
            }
        }
        state.updateUnbound { $0 &+= value }
    }

    private func value(in doc: Document, at slot: ValueSlot) -> Int? {
        if case .Scalar(.Counter(let current))? = try? doc.value(at: slot) { return Int(truncatingIfNeeded: current) }
        return nil
    }

    // MARK: Encoder and decoder support

    /// Binds without writing (the encoder has already written the value).
    func attach(doc: Document, slot: ValueSlot) {
        state.attach(doc: doc, place: slot)
    }

    /// Whether the counter is bound to `slot` of `doc`.
    func isBound(to doc: Document, slot: ValueSlot) -> Bool {
        state.isBound(to: doc, place: slot)
    }

    /// Whether the counter is bound to a document other than `doc` (see
    /// ``BindingState/isBound(toOtherThan:)``).
    func isBound(toOtherThan doc: Document) -> Bool {
        state.isBound(toOtherThan: doc)
    }

    // MARK: Codable

    private enum CodingKeys: String, CodingKey {
        case value
    }

    /// With ``AutomergeEncoder`` the counter is written as a counter scalar;
    /// other encoders get a keyed container with the value under `value`.
    public func encode(to encoder: any Encoder) throws {
        if let automerge = encoder as? AutomergeEncoderImpl {
            automerge.storage = .counter(self)
            return
        }
        try PlainBoundValueCoding.encode(value, under: CodingKeys.value, to: encoder)
    }

    /// With ``AutomergeDecoder`` the instance is bound to the counter being
    /// decoded; other decoders read the `value` key (or a plain integer).
    public required init(from decoder: any Decoder) throws {
        if let automerge = decoder as? AutomergeDecoderImpl {
            guard case .Scalar(.Counter)? = automerge.value, let slot = automerge.slot else {
                throw automerge.boundTypeMismatch(Counter.self, expected: "a counter")
            }
            state = BindingState(doc: automerge.doc, place: slot, empty: 0)
            return
        }
        let number = try PlainBoundValueCoding.decode(Int.self, under: CodingKeys.value, from: decoder)
        state = BindingState(unbound: number, empty: 0)
    }
}

extension Counter: ScalarValueRepresentable {
    /// Reads a counter scalar as an unbound counter.
    public static func fromScalarValue(_ val: ScalarValue) -> Result<Counter, CounterScalarConversionError> {
        if case .Counter(let value) = val { return .success(Counter(Int(truncatingIfNeeded: value))) }
        return .failure(.notCounterScalarValue(val))
    }

    /// A counter scalar with the current value.
    public func toScalarValue() -> ScalarValue { .Counter(Int64(value)) }
}

extension Counter: Equatable {
    /// Equal when the values are equal.
    public static func == (lhs: Counter, rhs: Counter) -> Bool {
        lhs === rhs || lhs.value == rhs.value
    }
}

extension Counter: Hashable {
    /// Hashes the value.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }
}

extension Counter: CustomStringConvertible {
    /// The value in decimal.
    public var description: String { String(value) }
}
