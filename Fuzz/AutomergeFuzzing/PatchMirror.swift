import Automerge
import Foundation

/// A plain copy of a document's visible state that patches are applied to,
/// to check the documented promise: applying the patches in order to the old
/// state gives the new state. Text is kept as Unicode scalars (the default
/// text encoding). Marks are not mirrored.
struct PatchMirror {
    enum Node {
        /// Keyed by UTF-8 bytes: Swift strings compare by canonical equivalence, Automerge keys by bytes.
        case map([[UInt8]: Value])
        case list([Value])
        case text([Unicode.Scalar])
    }

    private(set) var nodes: [ObjId: Node] = [:]

    init(_ doc: Document) {
        for (obj, type) in Objects.all(doc) {
            switch type {
            case .Map: nodes[obj] = .map(Self.entries(doc, obj))
            case .List: nodes[obj] = .list((try? doc.values(obj: obj)) ?? [])
            case .Text: nodes[obj] = .text(Array(((try? doc.text(obj: obj)) ?? "").unicodeScalars))
            }
        }
    }

    private static func entries(_ doc: Document, _ obj: ObjId) -> [[UInt8]: Value] {
        var result: [[UInt8]: Value] = [:]
        for (key, value) in (try? doc.mapEntries(obj: obj)) ?? [] { result[Array(key.utf8)] = value }
        return result
    }

    private static func empty(_ type: ObjType) -> Node {
        switch type {
        case .Map: return .map([:])
        case .List: return .list([])
        case .Text: return .text([])
        }
    }

    /// A value that names an object starts that object afresh: the patches
    /// that follow describe its whole content.
    private mutating func created(_ value: Value) {
        if case .Object(let id, let type) = value { nodes[id] = Self.empty(type) }
    }

    mutating func apply(_ patches: [Patch]) throws(FuzzFailure) {
        for (number, patch) in patches.enumerated() {
            func fail(_ why: String) -> FuzzFailure {
                FuzzFailure("patch \(number) of \(patches.count) (\(patch.action)) does not apply: \(why)")
            }
            switch patch.action {
            case .Put(let obj, let prop, let value):
                switch (nodes[obj], prop) {
                case (.map(var entries)?, .Key(let key)):
                    entries[Array(key.utf8)] = value
                    nodes[obj] = .map(entries)
                case (.list(var values)?, .Index(let index)):
                    guard index < values.count else { throw fail("index past the end (\(values.count))") }
                    values[Int(index)] = value
                    nodes[obj] = .list(values)
                case (.text(var scalars)?, .Index(let index)):
                    guard index < scalars.count else { throw fail("index past the end (\(scalars.count))") }
                    let replacement: [Unicode.Scalar]
                    if case .Scalar(.String(let s)) = value { replacement = Array(s.unicodeScalars) } else { replacement = ["\u{FFFC}"] }
                    scalars.replaceSubrange(Int(index)...Int(index), with: replacement)
                    nodes[obj] = .text(scalars)
                default:
                    throw fail("no such object or wrong kind of property")
                }
                created(value)
            case .Insert(let obj, let index, let values):
                guard case .list(var list)? = nodes[obj] else { throw fail("not a list") }
                guard index <= list.count else { throw fail("index past the end (\(list.count))") }
                list.insert(contentsOf: values, at: Int(index))
                nodes[obj] = .list(list)
                values.forEach { created($0) }
            case .SpliceText(let obj, let index, let text, _):
                guard case .text(var scalars)? = nodes[obj] else { throw fail("not a text") }
                guard index <= scalars.count else { throw fail("index past the end (\(scalars.count))") }
                scalars.insert(contentsOf: text.unicodeScalars, at: Int(index))
                nodes[obj] = .text(scalars)
            case .Increment(let obj, let prop, let by):
                switch (nodes[obj], prop) {
                case (.map(var entries)?, .Key(let key)):
                    guard case .Scalar(.Counter(let value))? = entries[Array(key.utf8)] else { throw fail("not a counter") }
                    entries[Array(key.utf8)] = .Scalar(.Counter(value &+ by))
                    nodes[obj] = .map(entries)
                case (.list(var values)?, .Index(let index)):
                    guard index < values.count, case .Scalar(.Counter(let value)) = values[Int(index)] else { throw fail("not a counter") }
                    values[Int(index)] = .Scalar(.Counter(value &+ by))
                    nodes[obj] = .list(values)
                default:
                    throw fail("no such object or wrong kind of property")
                }
            case .Conflict, .Marks:
                break
            case .DeleteMap(let obj, let key):
                guard case .map(var entries)? = nodes[obj] else { throw fail("not a map") }
                guard entries.removeValue(forKey: Array(key.utf8)) != nil else { throw fail("key \(key) absent") }
                nodes[obj] = .map(entries)
            case .DeleteSeq(let range):
                switch nodes[range.obj] {
                case .list(var values)?:
                    guard range.index + range.length <= values.count else { throw fail("range past the end (\(values.count))") }
                    values.removeSubrange(Int(range.index)..<Int(range.index + range.length))
                    nodes[range.obj] = .list(values)
                case .text(var scalars)?:
                    guard range.index + range.length <= scalars.count else { throw fail("range past the end (\(scalars.count))") }
                    scalars.removeSubrange(Int(range.index)..<Int(range.index + range.length))
                    nodes[range.obj] = .text(scalars)
                default:
                    throw fail("not a sequence")
                }
            }
        }
    }

    /// Requires every object visible in `doc` to equal its mirror.
    func check(against doc: Document, _ context: String) throws(FuzzFailure) {
        for (obj, type) in Objects.all(doc) {
            let actual: Node
            switch type {
            case .Map: actual = .map(Self.entries(doc, obj))
            case .List: actual = .list((try? doc.values(obj: obj)) ?? [])
            case .Text: actual = .text(Array(((try? doc.text(obj: obj)) ?? "").unicodeScalars))
            }
            guard let mirrored = nodes[obj] else { throw FuzzFailure("\(context): patches never created \(obj)") }
            guard Self.same(actual, mirrored) else {
                throw FuzzFailure("\(context): patches give \(mirrored) for \(obj), the document has \(actual)")
            }
        }
    }

    private static func same(_ a: Node, _ b: Node) -> Bool {
        switch (a, b) {
        case (.map(let x), .map(let y)):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { same(value, $0) } ?? false }
        case (.list(let x), .list(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.text(let x), .text(let y)):
            return x == y  // Unicode.Scalar arrays: compared scalar by scalar
        default:
            return false
        }
    }

    /// Equality that treats two NaNs with the same bits as equal.
    static func same(_ a: Value, _ b: Value) -> Bool {
        if case .Scalar(.F64(let x)) = a, case .Scalar(.F64(let y)) = b { return x.bitPattern == y.bitPattern }
        if case .Scalar(.String(let x)) = a, case .Scalar(.String(let y)) = b { return x.utf8.elementsEqual(y.utf8) }
        return a == b
    }
}
