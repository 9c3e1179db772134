import Automerge

extension ScriptVectors {
    static var history: [(String, EditScript)] {
        var scripts: [(String, EditScript)] = []
        scripts.append(("message-and-time", S.script("a commit with a message and its own time", [S.put([], "k", .Int(1)),
                                                                                   S.commit("first edit", time: 1_234_567)])))
        scripts.append(("times-out-of-order", S.script("commits stamped 0, -1, before 1970, in 2100, then 1: times need not increase (Rust 0.11 panics when two neighbouring times differ by more than Int64 holds, so the extremes stay out)",
                                   [S.put([], "k", .Int(1)), S.commit(time: 0), S.put([], "k", .Int(2)), S.commit(time: -1),
                                    S.put([], "k", .Int(3)), S.commit(time: -1_000_000_000_000), S.put([], "k", .Int(4)),
                                    S.commit(time: 4_102_444_800_000), S.put([], "k", .Int(5)), S.commit(time: 1)])))
        scripts.append(("empty-commit", S.script("a commit with nothing pending makes no change, even with a message",
                                  [S.put([], "k", .Int(1)), S.commit(), S.commit("nothing to say")])))
        scripts.append(("message-unicode", S.script("a message with astral characters and newlines", [S.put([], "k", .Int(1)),
                                                                                       S.commit("línea 1\nline 2 🚀")])))
        scripts.append(("many-changes", S.script("thirty changes by one actor: sequence numbers and dependencies chain",
                                  (0..<30).flatMap { [S.put([], "n", .Int(Int64($0))), S.commit(time: 1_700_000_000_000 + Int64($0))] })))
        scripts.append(("fork-and-merge", S.script("a fork edits, the original merges it", [S.put([], "k", .Int(1)), S.fork(as: "b"),
                                                                             S.put([], "k", .Int(2), on: "b"), S.merge(from: "b")])))
        scripts.append(("diamond", S.script("two forks edit concurrently and both merge: the next change has two dependencies",
                             [S.put([], "base", .Int(0)), S.fork(as: "b"), S.fork(as: "c"), S.put([], "b", .Int(1), on: "b"),
                              S.put([], "c", .Int(2), on: "c"), S.merge(from: "b"), S.merge(from: "c"), S.put([], "after", .Int(3))])))
        scripts.append(("merge-twice", S.script("merging what is already merged changes nothing", [S.put([], "k", .Int(1)), S.fork(as: "b"),
                                                                                   S.put([], "x", .Int(2), on: "b"), S.merge(from: "b"),
                                                                                   S.merge(from: "b")])))
        scripts.append(("save-load-continue", S.script("saved, loaded with the same actor, edited on: the sequence goes on",
                                        [S.put([], "k", .Int(1)), S.save(into: "s"), S.load("a", from: "s", actor: "a"),
                                         S.put([], "k", .Int(2))])))
        scripts.append(("load-as-new-actor", S.script("a saved document loaded by a new peer with its own actor", result: "b",
                                       [S.object([], "t", .Text), S.text(["t"], 0, "shared"), S.save(into: "s"),
                                        S.load("b", from: "s", actor: "b"), S.text(["t"], 6, " text", on: "b")])))
        scripts.append(("pending-dropped-by-load", S.script("a load replaces the peer: its uncommitted edits are gone",
                                             [S.put([], "k", .Int(1)), S.save(into: "s"), S.put([], "lost", .Int(2)),
                                              S.load("a", from: "s", actor: "a"), S.put([], "kept", .Int(3))])))
        scripts.append(("three-actors", S.script("three peers edit one list in turns, merging after each", peers: ["a", "b", "c"], result: "c",
                                  [S.object([], "l", .List, on: "a"), S.merge("b", from: "a"), S.insert(["l"], 0, .String("b"), on: "b"),
                                   S.merge("c", from: "b"), S.insert(["l"], 1, .String("c"), on: "c"), S.merge("a", from: "c"),
                                   S.insert(["l"], 0, .String("a"), on: "a"), S.merge("c", from: "a")])))
        return scripts
    }
}
