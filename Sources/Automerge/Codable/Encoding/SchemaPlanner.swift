#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Compares the encoded model with the document and decides the writes
/// (phase one of an encode). It only reads the document, and it throws every
/// schema error, so a failed encode writes nothing.
///
/// Values that already match produce no action at all: re-encoding an
/// unchanged model creates no ops.
struct SchemaPlanner {
    let doc: Document
    let strategy: SchemaStrategy
    let cautiousWrite: Bool
    let log: CodableLog

    /// The action that makes `slot` (currently holding `existing`) match `value`; nil when it already does.
    func plan(_ value: EncodedValue, existing: Value?, slot: ValueSlot?, path: [any CodingKey]) throws -> SlotAction? {
        switch value.resolved {
        case .scalar(let scalar):
            return try planScalar(scalar, existing: existing, path: path)
        case .map(let map):
            if case .Object(let id, .Map)? = existing {
                let plan = try planMap(map, in: id, path: path)
                return plan.isEmpty ? nil : .map(plan)
            }
            return try planCreate(value, replacing: existing, path: path)
        case .list(let list):
            if case .Object(let id, .List)? = existing {
                let plan = try planList(list, in: id, path: path)
                return plan.edits.isEmpty ? nil : .list(plan)
            }
            return try planCreate(value, replacing: existing, path: path)
        case .text(let text):
            if case .Object(let id, .Text)? = existing { return try planText(text, in: id) }
            try checkTextReplaces(existing, at: path)
            return try planCreate(value, replacing: existing, path: path)
        case .counter(let counter):
            return try planCounter(counter, existing: existing, slot: slot, path: path)
        case .deferred:
            return nil
        }
    }

    /// An ``AutomergeText`` goes only where nothing is or a Text object is,
    /// unless the strategy is `.override` (as in automerge-swift, which
    /// never replaces a value with text).
    func checkTextReplaces(_ existing: Value?, at path: [any CodingKey]) throws {
        guard let existing, strategy != .override else { return }
        throw CodingKeyLookupError.MismatchedSchema(
            "\(path.stringPath()) holds \(describeValue(existing)), not Text: an AutomergeText is written only over Text or nothing.")
    }

    /// Key-by-key changes to the existing map `obj`; keys the model does not
    /// write are deleted.
    func planMap(_ map: EncodedMap, in obj: ObjId, path: [any CodingKey]) throws -> MapPlan {
        let entries = try doc.mapEntries(obj: obj)
        var existing: [String: Value] = [:]
        existing.reserveCapacity(entries.count)
        for (key, value) in entries { existing[key] = value }
        var result = MapPlan(obj: obj)
        for (key, value) in map.entries {
            let childPath = path + [AnyCodingKey(key)]
            if let action = try self.plan(value, existing: existing[key], slot: .key(obj, key), path: childPath) {
                log.trace("update \(childPath.stringPath())")
                result.updates.append((key, action))
            }
        }
        for (key, value) in entries where map.values[key] == nil {
            try checkRemovable(value, at: path + [AnyCodingKey(key)])
            log.debug("delete \((path + [AnyCodingKey(key)]).stringPath()), which the model does not have")
            result.deletions.append(key)
        }
        return result
    }

    /// Throws if the readonly strategy forbids removing `value` (an object).
    func checkRemovable(_ value: Value, at path: [any CodingKey]) throws {
        if strategy == .readonly, case .Object(_, let type) = value {
            throw CodingKeyLookupError.MismatchedSchema("The model has nothing at \(path.stringPath()), but the document has a \(type) there, and the readonly strategy does not remove objects.")
        }
    }

    /// Throws if the readonly strategy forbids creating `value` (it holds an object).
    func checkCreatable(_ value: EncodedValue, at path: [any CodingKey]) throws {
        if strategy == .readonly, value.containsObject {
            throw CodingKeyLookupError.SchemaMissing("The model has a \(value.kindName) at \(path.stringPath()) that the document lacks, and the readonly strategy does not create objects.")
        }
    }

    private func planScalar(_ scalar: ScalarValue, existing: Value?, path: [any CodingKey]) throws -> SlotAction? {
        switch existing {
        case nil:
            return .put(scalar)
        case .Scalar(let current)?:
            if Primitive.same(current, scalar) { return nil }
            try checkScalarType(current, scalar, path: path)
            return .put(scalar)
        case .Object(let id, let type)?:
            if type == .Text, case .String(let string) = scalar {
                // A String property over a Text object (as JavaScript peers
                // write strings) updates the text in place.
                let current = try doc.text(obj: id)
                return current.utf8.elementsEqual(string.utf8) ? nil : .text(id, newValue: string, bind: nil)
            }
            if strategy == .override || (scalar == .Null && strategy != .readonly) { return .put(scalar) }
            throw CodingKeyLookupError.MismatchedSchema("The model has the scalar \(scalar) at \(path.stringPath()), but the document has a \(type) there.")
        }
    }

    /// With `cautiousWrite`, throws unless `current` and `new` are scalars of the same type (null matches anything).
    private func checkScalarType(_ current: ScalarValue, _ new: ScalarValue, path: [any CodingKey]) throws {
        guard cautiousWrite, current != .Null, new != .Null, current.typeName != new.typeName else { return }
        throw EncodingError.invalidValue(new, EncodingError.Context(
            codingPath: path,
            debugDescription: "cautiousWrite: the document has \(current.typeName) at \(path.stringPath()), the model writes \(new.typeName)."))
    }

    private func planText(_ text: AutomergeText, in id: ObjId) throws -> SlotAction? {
        if text.isBound(to: doc, id: id) { return nil }
        let current = try doc.text(obj: id)
        let wanted = text.value
        let newValue = current.utf8.elementsEqual(wanted.utf8) ? nil : wanted
        let bind = text.isBound(toOtherThan: doc) ? nil : text
        if newValue == nil && bind == nil { return nil }
        return .text(id, newValue: newValue, bind: bind)
    }

    private func planCounter(_ counter: Counter, existing: Value?, slot: ValueSlot?, path: [any CodingKey]) throws -> SlotAction? {
        switch existing {
        case .Scalar(.Counter(let current))?:
            if let slot, counter.isBound(to: doc, slot: slot) { return nil }
            let delta = Int64(counter.value) &- current
            let bind = counter.isBound(toOtherThan: doc) ? nil : counter
            if delta == 0 && bind == nil { return nil }
            return .counter(delta: delta, bind: bind)
        case .Scalar(let current)?:
            try checkScalarType(current, .Counter(0), path: path)
            return .create(.counter(counter))
        case nil:
            return .create(.counter(counter))
        case .Object(_, let type)?:
            if strategy == .override { return .create(.counter(counter)) }
            throw CodingKeyLookupError.MismatchedSchema("The model has a counter at \(path.stringPath()), but the document has a \(type) there.")
        }
    }

    /// A new object where the document has nothing, null, or (with `.override`) something else.
    private func planCreate(_ value: EncodedValue, replacing existing: Value?, path: [any CodingKey]) throws -> SlotAction {
        if let existing, existing != .Scalar(.Null), strategy != .override {
            throw CodingKeyLookupError.MismatchedSchema("The model has a \(value.kindName) at \(path.stringPath()), but the document has \(describeValue(existing)) there.")
        }
        try checkCreatable(value, at: path)
        log.debug("create a \(value.kindName) at \(path.stringPath())")
        return .create(value)
    }
}

/// A short description of a document value for error messages.
func describeValue(_ value: Value?) -> String {
    switch value {
    case nil: return "nothing"
    case .Scalar(let scalar)?: return "the scalar \(scalar)"
    case .Object(_, let type)?: return "a \(type) object"
    }
}

extension ScalarValue {
    /// The name of the scalar's type, for type checks and messages.
    var typeName: String {
        switch self {
        case .Bytes: return "Bytes"
        case .String: return "String"
        case .Uint: return "Uint"
        case .Int: return "Int"
        case .F64: return "F64"
        case .Counter: return "Counter"
        case .Timestamp: return "Timestamp"
        case .Boolean: return "Boolean"
        case .Unknown: return "Unknown"
        case .Null: return "Null"
        }
    }
}
