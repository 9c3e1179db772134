import Automerge
import Foundation

/// The edit scripts of `Vectors/scripts/`: every API's op generation at its
/// edges. Text, updateText and marks are in `ScriptVectors+Text.swift`.
enum ScriptVectors {
    static func add(to b: inout ScriptVectorBuilder) throws {
        for (name, script) in puts { try b.add("put", name, script) }
        for (name, script) in objects { try b.add("objects", name, script) }
        for (name, script) in lists { try b.add("lists", name, script) }
        for (name, script) in deletes { try b.add("delete", name, script) }
        for (name, script) in counters { try b.add("counters", name, script) }
        for (name, script) in history { try b.add("history", name, script) }
        for (name, script) in text { try b.add("text", name, script) }
        for (name, script) in updateText { try b.add("update-text", name, script) }
        for (name, script) in marks { try b.add("marks", name, script) }
    }

    static let everyScalar: [(String, ScalarValue)] = [
        ("str", .String("hello")), ("empty", .String("")), ("int", .Int(-42)), ("intMin", .Int(.min)), ("intMax", .Int(.max)),
        ("uint", .Uint(.max)), ("f64", .F64(3.25)), ("negZero", .F64(-0.0)), ("inf", .F64(.infinity)),
        ("true", .Boolean(true)), ("false", .Boolean(false)), ("null", .Null), ("bytes", .Bytes(Data([0, 1, 0xFF]))),
        ("noBytes", .Bytes(Data())), ("time", .Timestamp(Date(timeIntervalSince1970: 1_700_000_000.123))),
        ("counter", .Counter(7)),
    ]

    static var puts: [(String, EditScript)] {
        var scripts: [(String, EditScript)] = []
        scripts.append(("every-scalar", S.script("a put of every scalar type and its extremes, one key each, in one change",
                                  everyScalar.map { S.put([], $0.0, $0.1) })))
        scripts.append(("same-value-twice-in-one-change", S.script("putting the value a key already holds, in the same change, adds no op",
                                                    [S.put([], "k", .String("v")), S.put([], "k", .String("v"))])))
        scripts.append(("same-value-next-change", S.script("putting the value a key already holds in a later change makes no op and so no change",
                                            [S.put([], "k", .Int(1)), S.commit(), S.put([], "k", .Int(1)), S.commit("again")])))
        scripts.append(("same-value-other-type", S.script("an int and a uint of one number are different values: the put makes an op",
                                           [S.put([], "k", .Int(1)), S.commit(), S.put([], "k", .Uint(1))])))
        scripts.append(("overwrite", S.script("a put over a value names it as its predecessor",
                               [S.put([], "k", .String("old")), S.commit(), S.put([], "k", .String("new"))])))
        scripts.append(("overwrite-in-one-change", S.script("three puts of one key in one change: each succeeds the one before",
                                             [S.put([], "k", .Int(1)), S.put([], "k", .Int(2)), S.put([], "k", .Int(3))])))
        scripts.append(("scalar-over-object", S.script("a scalar put over a map", [S.object([], "k", .Map), S.put(["k"], "x", .Int(1)),
                                                                   S.commit(), S.put([], "k", .String("flat"))])))
        scripts.append(("null-value", S.script("null is a value: putting it is not deleting", [S.put([], "k", .Int(1)), S.put([], "k", .Null)])))
        scripts.append(("same-null-twice", S.script("putting null where null is makes no op", [S.put([], "k", .Null), S.commit(), S.put([], "k", .Null)])))
        scripts.append(("unicode-keys", S.script("keys in many scripts, written in an order their UTF-8 bytes do not sort in",
                                  ["zeta", "Ä", "a", "日本", "😀", "", "A", "ß"].map { S.put([], $0, .String($0)) })))
        scripts.append(("list-index", S.script("a put at a list index replaces that element",
                                [S.object([], "l", .List), S.splice(["l"], 0, delete: 0, [.Int(1), .Int(2), .Int(3)]), S.commit(),
                                 S.put(["l"], index: 1, .String("two"))])))
        scripts.append(("list-index-same-value", S.script("putting the value a list element holds makes no op",
                                           [S.object([], "l", .List), S.insert(["l"], 0, .Int(5)), S.commit(),
                                            S.put(["l"], index: 0, .Int(5))])))
        scripts.append(("same-value-over-conflict", S.script("putting one of two conflicting values again settles the conflict",
                                              peers: ["a", "b"],
                                              [S.put([], "k", .String("a"), on: "a"), S.put([], "k", .String("b"), on: "b"),
                                               S.merge(from: "b"), S.put([], "k", .String("b"))])))
        scripts.append(("put-over-conflict", S.script("a put over two conflicting values succeeds both", peers: ["a", "b"],
                                       [S.put([], "k", .Int(1), on: "a"), S.put([], "k", .Int(2), on: "b"),
                                        S.merge(from: "b"), S.put([], "k", .Int(3))])))
        scripts.append(("nested-map", S.script("puts three maps deep", [S.object([], "a", .Map), S.object(["a"], "b", .Map),
                                                         S.object(["a", "b"], "c", .Map), S.put(["a", "b", "c"], "d", .Int(1))])))
        return scripts
    }

    static var objects: [(String, EditScript)] {
        var scripts: [(String, EditScript)] = []
        scripts.append(("creation-order", S.script("objects made in a change get op ids in the order they are made, parents first",
                                    [S.object([], "m", .Map), S.object(["m"], "l", .List), S.insertObject(["m", "l"], 0, .Text),
                                     S.text(["m", "l", 0], 0, "hi"), S.object([], "t", .Text)])))
        scripts.append(("every-type", S.script("a map, a list and a text at the root", [S.object([], "map", .Map), S.object([], "list", .List),
                                                                         S.object([], "text", .Text)])))
        scripts.append(("object-over-object", S.script("a map put where a list was: the list and its contents are gone",
                                        [S.object([], "o", .List), S.insert(["o"], 0, .Int(1)), S.commit(), S.object([], "o", .Map)])))
        scripts.append(("same-key-twice", S.script("putting a map twice in one change: the second replaces the first",
                                    [S.object([], "o", .Map), S.put(["o"], "x", .Int(1)), S.object([], "o", .Map),
                                     S.put(["o"], "y", .Int(2))])))
        scripts.append(("insert-objects", S.script("maps, lists and texts inserted into a list, at the front and the back",
                                    [S.object([], "l", .List), S.insertObject(["l"], 0, .Map), S.insertObject(["l"], 0, .List),
                                     S.insertObject(["l"], 2, .Text), S.put(["l", 1], "k", .Int(1)), S.text(["l", 2], 0, "t")])))
        scripts.append(("object-at-index", S.script("an object put over a list element", [S.object([], "l", .List), S.insert(["l"], 0, .Int(1)),
                                                                           S.commit(), S.object(["l"], index: 0, .Map),
                                                                           S.put(["l", 0], "k", .Boolean(true))])))
        scripts.append(("deep-nesting", S.script("twelve levels of maps and lists, alternating", deepNesting())))
        scripts.append(("made-and-deleted", S.script("an object made and deleted in one change",
                                      [S.object([], "o", .Map), S.put(["o"], "k", .Int(1)), S.delete([], "o")])))
        scripts.append(("edit-in-fork", S.script("an object made on one peer and edited on its fork", peers: ["a"],
                                  [S.object([], "o", .Map), S.fork(as: "b"), S.put(["o"], "k", .Int(2), on: "b"),
                                   S.merge(from: "b")])))
        scripts.append(("list-of-maps", S.script("a table of rows: a list of maps, each with fields",
                                  [S.object([], "rows", .List)] + (0..<4).flatMap { row -> [EditScript.Step] in
                                      [S.insertObject(["rows"], UInt64(row), .Map), S.put(["rows", .index(UInt64(row))], "id", .Int(Int64(row))),
                                       S.put(["rows", .index(UInt64(row))], "name", .String("row \(row)"))]
                                  })))
        return scripts
    }

    /// Maps and lists in turn, twelve deep, ending in a put.
    static func deepNesting() -> [EditScript.Step] {
        var steps: [EditScript.Step] = []
        var path: S.Path = []
        var inList = false
        for level in 0..<12 {
            let type: ObjType = level % 2 == 0 ? .List : .Map
            if inList {
                steps.append(S.insertObject(path, 0, type))
                path.append(.index(0))
            } else {
                steps.append(S.object(path, "level\(level)", type))
                path.append(.key("level\(level)"))
            }
            inList = type == .List
        }
        steps.append(S.put(path, "bottom", .String("reached")))
        return steps
    }

    static var lists: [(String, EditScript)] {
        var scripts: [(String, EditScript)] = []
        scripts.append(("append", S.script("inserts at the end, one change", [S.object([], "l", .List)] + (0..<5).map { S.insert(["l"], UInt64($0), .Int(Int64($0))) })))
        scripts.append(("prepend", S.script("inserts at the front, one change: each after the head", [S.object([], "l", .List)]
                                 + (0..<5).map { S.insert(["l"], 0, .Int(Int64($0))) })))
        scripts.append(("insert-middle", S.script("an insert between two elements", [S.object([], "l", .List),
                                                                        S.splice(["l"], 0, delete: 0, [.Int(1), .Int(3)]), S.commit(),
                                                                        S.insert(["l"], 1, .Int(2))])))
        scripts.append(("splice-insert", S.script("a splice that only inserts", [S.object([], "l", .List),
                                                                    S.splice(["l"], 0, delete: 0, [.String("a"), .String("b"), .String("c")])])))
        scripts.append(("splice-delete", S.script("a splice that only deletes, from the middle", [S.object([], "l", .List),
                                                                                   S.splice(["l"], 0, delete: 0, (0..<6).map { .Int($0) }),
                                                                                   S.commit(), S.splice(["l"], 2, delete: 3, [])])))
        scripts.append(("splice-replace", S.script("a splice that deletes two and inserts three in their place",
                                    [S.object([], "l", .List), S.splice(["l"], 0, delete: 0, (0..<5).map { .Int($0) }), S.commit(),
                                     S.splice(["l"], 1, delete: 2, [.String("x"), .String("y"), .String("z")])])))
        scripts.append(("splice-at-end", S.script("a splice at the end: deletes the last and appends", [S.object([], "l", .List),
                                                                                         S.splice(["l"], 0, delete: 0, [.Int(1), .Int(2)]),
                                                                                         S.commit(), S.splice(["l"], 1, delete: 1, [.Int(3), .Int(4)])])))
        scripts.append(("splice-nothing", S.script("a splice that deletes none and inserts none makes no op",
                                    [S.object([], "l", .List), S.insert(["l"], 0, .Int(1)), S.commit(), S.splice(["l"], 1, delete: 0, [])])))
        scripts.append(("mixed-types", S.script("a list holding every scalar type", [S.object([], "l", .List),
                                                                       S.splice(["l"], 0, delete: 0, everyScalar.map(\.1))])))
        scripts.append(("insert-after-deleted", S.script("an insert at the position of a deleted element, in the same change",
                                          [S.object([], "l", .List), S.splice(["l"], 0, delete: 0, [.Int(1), .Int(2), .Int(3)]), S.commit(),
                                           S.delete(["l"], index: 1), S.insert(["l"], 1, .Int(9))])))
        scripts.append(("concurrent-inserts", S.script("two peers insert at the same place; merged both ways", peers: ["a", "b"],
                                        [S.object([], "l", .List), S.insert(["l"], 0, .String("base")), S.merge("b", from: "a"),
                                         S.insert(["l"], 1, .String("from a")), S.insert(["l"], 1, .String("from b"), on: "b"),
                                         S.merge(from: "b"), S.merge("b", from: "a")])))
        let manySplices = (0..<10).map { (n: Int64) -> EditScript.Step in
            S.splice(["l"], UInt64(n / 2), delete: n % 3 == 2 ? 1 : 0, [.Int(n), .Int(n * 10)])
        }
        scripts.append(("many-splices", S.script("ten splices in one change", [S.object([], "l", .List)] + manySplices)))
        return scripts
    }

    static var deletes: [(String, EditScript)] {
        var scripts: [(String, EditScript)] = []
        scripts.append(("map-key", S.script("a delete names the value it removes", [S.put([], "k", .Int(1)), S.commit(), S.delete([], "k")])))
        scripts.append(("resolves-conflict", S.script("deleting a key with two conflicting values removes both", peers: ["a", "b"],
                                       [S.put([], "k", .Int(1), on: "a"), S.put([], "k", .Int(2), on: "b"), S.merge(from: "b"),
                                        S.delete([], "k")])))
        scripts.append(("list-element-conflict", S.script("deleting a list element two peers set concurrently", peers: ["a"],
                                           [S.object([], "l", .List), S.insert(["l"], 0, .Int(0)), S.fork(as: "b"),
                                            S.put(["l"], index: 0, .Int(1)), S.put(["l"], index: 0, .Int(2), on: "b"),
                                            S.merge(from: "b"), S.delete(["l"], index: 0)])))
        scripts.append(("missing-key", S.script("deleting a key that is not there makes no op", [S.put([], "k", .Int(1)), S.commit(),
                                                                                  S.delete([], "other")])))
        scripts.append(("then-put", S.script("a delete then a put of the key, in one change", [S.put([], "k", .Int(1)), S.commit(),
                                                                                S.delete([], "k"), S.put([], "k", .Int(2))])))
        scripts.append(("object-with-contents", S.script("deleting a map deletes only the map's op", [S.object([], "o", .Map),
                                                                                        S.put(["o"], "a", .Int(1)), S.commit(),
                                                                                        S.delete([], "o")])))
        scripts.append(("list-first-and-last", S.script("deleting the first and the last element", [S.object([], "l", .List),
                                                                                      S.splice(["l"], 0, delete: 0, [.Int(1), .Int(2), .Int(3)]),
                                                                                      S.commit(), S.delete(["l"], index: 2), S.delete(["l"], index: 0)])))
        scripts.append(("counter", S.script("deleting a counter that was incremented", [S.put([], "c", .Counter(1)), S.commit(),
                                                                         S.increment([], "c", by: 2), S.commit(), S.delete([], "c")])))
        return scripts
    }

    static var counters: [(String, EditScript)] {
        var scripts: [(String, EditScript)] = []
        scripts.append(("increment", S.script("increments name the counter's put as predecessor", [S.put([], "c", .Counter(0)), S.commit(),
                                                                                    S.increment([], "c", by: 5)])))
        scripts.append(("negative-and-zero", S.script("increments by -3 and by 0", [S.put([], "c", .Counter(10)), S.commit(),
                                                                     S.increment([], "c", by: -3), S.increment([], "c", by: 0)])))
        scripts.append(("same-change", S.script("a counter made and incremented twice in one change",
                                 [S.put([], "c", .Counter(1)), S.increment([], "c", by: 1), S.increment([], "c", by: 1)])))
        scripts.append(("in-list", S.script("a counter in a list", [S.object([], "l", .List), S.insert(["l"], 0, .Counter(3)), S.commit(),
                                                     S.increment(["l"], index: 0, by: 4)])))
        scripts.append(("concurrent", S.script("two peers increment one counter; merged", peers: ["a"],
                                [S.put([], "c", .Counter(0)), S.fork(as: "b"), S.increment([], "c", by: 1),
                                 S.increment([], "c", by: 10, on: "b"), S.merge(from: "b"), S.increment([], "c", by: 100)])))
        scripts.append(("extremes", S.script("counters at Int64's extremes", [S.put([], "max", .Counter(.max)), S.put([], "min", .Counter(.min)),
                                                               S.commit(), S.increment([], "max", by: -1), S.increment([], "min", by: 1)])))
        scripts.append(("reset-by-put", S.script("a counter put over an incremented counter", [S.put([], "c", .Counter(1)), S.commit(),
                                                                                S.increment([], "c", by: 1), S.commit(),
                                                                                S.put([], "c", .Counter(0))])))
        scripts.append(("nested", S.script("a counter in a map in a list", [S.object([], "l", .List), S.insertObject(["l"], 0, .Map),
                                                             S.put(["l", 0], "n", .Counter(0)), S.commit(),
                                                             S.increment(["l", 0], "n", by: 2)])))
        return scripts
    }
}
