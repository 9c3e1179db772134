@testable import AutomergeConformance
import Automerge
import AutomergeTestSupport
import Foundation
import PropertyBased
import Testing

/// Running a script in process and through `automerge script` gives the same
/// document, and the tools that compare two implementations' runs point at
/// the step and the op where they part.
@Suite("Edit scripts: implementations", .ownThread)
struct ScriptImplementationPropertyTests {
    /// This package with one step changed: from step `step` on, a put of a
    /// string puts that string with "~" appended.
    struct ChangedPut: ScriptImplementation {
        let step: Int
        var name: String { "changed put at step \(step)" }

        static func changing(_ script: EditScript, at step: Int) -> EditScript {
            var script = script
            if step >= 1, step <= script.steps.count, case .put(let obj, let at, .String(let text)) = script.steps[step - 1].action {
                script.steps[step - 1].action = .put(obj: obj, at: at, value: .String(text + "~"))
            }
            return script
        }

        func save(running script: EditScript) throws -> Data {
            try BuiltInScriptImplementation().save(running: Self.changing(script, at: step))
        }
    }

    static func isStringPut(_ step: EditScript.Step) -> Bool {
        if case .put(_, _, .String) = step.action { return true }
        return false
    }

    @Test("random scripts run in process and through the automerge executable give identical saves",
          .enabled(if: AutomergeExecutable.url != nil, "the automerge executable is not built"), .shrinking)
    func inProcessMatchesExecutable() async throws {
        let external = ExternalScriptImplementation(command: AutomergeExecutable.url!.path)
        await propertyCheck(count: 20, input: RandomEditScript.generator) { script throws in
            let builtIn = try BuiltInScriptImplementation().save(running: script)
            let viaExecutable = try await blockingWork { try external.save(running: script) }
            #expect(builtIn == viaExecutable,
                    "\(ScriptComparison.difference(expectedSave: builtIn, actualSave: viaExecutable) ?? "")\n\(script.json.serialized)")
        }
    }

    @Test("the generator makes valid scripts that use every action")
    func generatorCoversEveryAction() async {
        var seen: Set<String> = []
        await propertyCheck(count: 40, input: RandomEditScript.generator) { script throws in
            #expect(throws: Never.self) { try EditScriptRunner.run(script) }
            // Compared as JSON: a NaN f64 is not == itself, but its bit pattern reads back.
            #expect(try EditScript(json: script.json).json == script.json, "reads back")
            seen.formUnion(script.steps.map(\.action.name))
        }
        let all: Set = ["put", "putObject", "insert", "insertObject", "delete", "increment", "splice", "spliceText",
                        "updateText", "mark", "unmark", "commit", "fork", "merge", "save", "load"]
        #expect(all.subtracting(seen).isEmpty, "never generated: \(all.subtracting(seen).sorted())")
    }

    @Test("firstDivergentStep is nil when two implementations agree and otherwise the first step whose change alters the result",
          .shrinking)
    func firstDivergentStep() async throws {
        let builtIn = BuiltInScriptImplementation()
        await propertyCheck(count: 15, input: RandomEditScript.generator, Gen.uint64()) { script, pick in
            let n = script.steps.count
            let stringPuts = (1...n).filter { Self.isStringPut(script.steps[$0 - 1]) }
            var ks = [Int(pick % UInt64(n)) + 1]
            if !stringPuts.isEmpty { ks.append(stringPuts[Int(pick / 7 % UInt64(stringPuts.count))]) }
            for k in ks {
                let mutant = ChangedPut(step: k)
                let answer = ScriptComparison.firstDivergentStep(script, builtIn, mutant)
                // The truth, prefix by prefix: does the changed script leave a different result?
                let differs = (0...n).map { count in
                    let prefix = script.prefix(count)  // a prefix may lack the result peer: both then fail alike
                    return (try? builtIn.save(running: prefix)) != (try? mutant.save(running: prefix))
                }
                let first = differs.firstIndex(of: true)
                guard differs[n] else {
                    #expect(answer == nil, "the whole script agrees, step \(k) changed: \(script.json.serialized)")
                    continue
                }
                if differs[first!...].allSatisfy({ $0 }) {
                    #expect(answer == first, "step \(k) changed: \(script.json.serialized)")
                } else if let answer {
                    // A later load can undo a difference: bisection then finds some step where they part.
                    #expect(!differs[answer - 1] && differs[answer], "step \(k) changed: \(script.json.serialized)")
                }
                #expect(first! >= k, "nothing before the changed step differs")
                let resultPeer = script.result ?? script.peers[0].name
                if Self.isStringPut(script.steps[k - 1]), (script.steps[k - 1].peer ?? script.peers[0].name) == resultPeer {
                    #expect(first == k, "a changed string put on the result peer parts at its own step")
                }
            }
            // A step that is no string put changes nothing.
            if let other = (1...n).first(where: { !Self.isStringPut(script.steps[$0 - 1]) }) {
                #expect(ScriptComparison.firstDivergentStep(script, builtIn, ChangedPut(step: other)) == nil)
            }
        }
    }

    static let todo = S.script("a todo list, edited over three changes", peers: ["a", "b"], [
        S.object([], "todo", .List), S.insert(["todo"], 0, .String("milk")), S.commit("first"),
        S.put([], "title", .String("hello")), S.put([], "count", .Int(3)), S.commit("second"),
        S.fork(as: "c"), S.insert(["todo"], 1, .String("eggs"), on: "c"), S.merge(from: "c"),
    ])

    @Test("firstDivergentStep names the changed put in a fixed script, and nil for identical implementations")
    func firstDivergentStepFixed() {
        let builtIn = BuiltInScriptImplementation()
        #expect(ScriptComparison.firstDivergentStep(Self.todo, builtIn, ChangedPut(step: 2)) == nil)  // an insert: unchanged
        #expect(ScriptComparison.firstDivergentStep(Self.todo, builtIn, ChangedPut(step: 4)) == 4)
        #expect(ScriptComparison.firstDivergentStep(Self.todo, builtIn, ChangedPut(step: 5)) == nil)  // an int put: unchanged
        #expect(ScriptComparison.firstDivergentStep(Self.todo, builtIn, builtIn) == nil)
    }

    @Test("difference names the first differing op and the changed value when one step differs")
    func differenceNamesTheOp() throws {
        let expected = try BuiltInScriptImplementation().save(running: Self.todo)
        let changed = try ChangedPut(step: 4).save(running: Self.todo)
        #expect(ScriptComparison.difference(expectedSave: expected, actualSave: expected) == nil)
        let text = try #require(ScriptComparison.difference(expectedSave: expected, actualSave: changed))
        #expect(text.contains("first differing op"), "\(text)")
        #expect(text.contains("hello~"), "\(text)")
        #expect(text.contains("hello"), "\(text)")
        #expect(text.contains("they part at change 2"), "\(text)")
    }
}

/// Random valid edit scripts, built from a list of choices so that they
/// shrink with it: each choice picks a peer, an action and its parameters
/// from the document as the script so far leaves it, and a candidate step
/// the script cannot run is dropped.
enum RandomEditScript {
    /// 1–3 peers, each with a root map, list, text and counter, then 1–40 random steps.
    static let generator = zip(Gen.int(in: 1...3), Gen.uint64().array(of: 1...40)).map { peers, choices in
        build(peerCount: peers, choices: choices)
    }

    /// A small deterministic generator seeded by one choice.
    struct Dice {
        var generator: SeededGenerator
        init(_ seed: UInt64) { generator = SeededGenerator(seed: seed) }
        mutating func next() -> UInt64 { generator.next() }
        /// 0..<bound (bound > 0).
        mutating func int(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func int(in range: ClosedRange<Int>) -> Int { range.lowerBound + int(range.count) }
        mutating func pick<T>(_ items: [T]) -> T { items[int(items.count)] }
        mutating func bool() -> Bool { next() & 1 == 0 }
    }

    static let snippets = ["a", "bc", "héllo", "🙂", "x y", "日本", "", "👨‍👩‍👧", "\n", "é"]

    static func scalar(_ dice: inout Dice) -> ScalarValue {
        switch dice.int(10) {
        case 0, 1, 2: .String(dice.pick(snippets) + String(dice.int(100)))
        case 3: .Int(Int64(dice.int(in: -1000...1000)))
        case 4: .Uint(dice.next())
        case 5: .F64(Double(bitPattern: dice.next()))
        case 6: .Boolean(dice.bool())
        case 7: .Null
        case 8: .Bytes(Data((0..<dice.int(4)).map { _ in UInt8(dice.int(256)) }))
        default: dice.bool() ? .Timestamp(Date(timeIntervalSince1970: Double(dice.int(in: 0...2_000_000_000)) / 1000))
            : .Counter(Int64(dice.int(in: -10...10)))
        }
    }

    static func objType(_ dice: inout Dice) -> ObjType { dice.pick([.Map, .List, .Text]) }
    static func expand(_ dice: inout Dice) -> ExpandMark { dice.pick([.before, .after, .both, .none]) }

    /// The script `steps` make, its result `peer`.
    static func script(_ peers: [EditScript.Peer], _ steps: [EditScript.Step], result: String? = nil) -> EditScript {
        EditScript(description: "a random script", peers: peers, steps: steps, result: result)
    }

    static func build(peerCount: Int, choices: [UInt64]) -> EditScript {
        let initial = ["a", "b", "c"].prefix(peerCount).enumerated().map { offset, name in
            EditScript.Peer(name: name, actor: S.actor(name), time: 1_700_000_000_000 + Int64(offset) * 1000)
        }
        var peers = initial.map(\.name)
        var steps: [EditScript.Step] = initial.flatMap { peer in
            [S.object([], "map", .Map, on: peer.name), S.object([], "list", .List, on: peer.name),
             S.object([], "text", .Text, on: peer.name), S.put([], "counter", .Counter(0), on: peer.name), S.commit(on: peer.name)]
        }
        var slots: [String] = []
        var loads = 0
        for choice in choices {
            var dice = Dice(choice)
            let peer = dice.pick(peers)
            guard let document = try? EditScriptRunner.run(script(initial, steps, result: peer)) else { continue }
            func object(_ path: S.Path) -> ObjId? { try? ScriptEdit.object(path, in: document) }
            let listLength = object(["list"]).map { Int(document.length(obj: $0)) }
            let text = object(["text"]).flatMap { try? document.text(obj: $0) }.map { Array($0.unicodeScalars) }
            let textLength = text?.count
            let mapKeys = object(["map"]).map { document.keys(obj: $0) } ?? []
            var action: EditScript.Action?
            switch dice.int(16) {
            case 0:
                if dice.bool() || (listLength ?? 0) == 0 {
                    action = dice.bool() ? .put(obj: [], at: .key(dice.pick(["x", "y"])), value: scalar(&dice))
                        : .put(obj: ["map"], at: .key(dice.pick(["p", "q", "r"])), value: scalar(&dice))
                } else {
                    action = .put(obj: ["list"], at: .index(UInt64(dice.int(listLength!))), value: scalar(&dice))
                }
            case 1:
                if dice.bool() || (listLength ?? 0) == 0 {
                    action = .putObject(obj: ["map"], at: .key(dice.pick(["m", "n"])), type: objType(&dice))
                } else {
                    action = .putObject(obj: ["list"], at: .index(UInt64(dice.int(listLength!))), type: objType(&dice))
                }
            case 2: action = listLength.map { .insert(obj: ["list"], index: UInt64(dice.int($0 + 1)), value: scalar(&dice)) }
            case 3: action = listLength.map { .insertObject(obj: ["list"], index: UInt64(dice.int($0 + 1)), type: objType(&dice)) }
            case 4:
                switch dice.int(3) {
                case 0: action = mapKeys.isEmpty ? nil : .delete(obj: ["map"], at: .key(dice.pick(mapKeys)))
                case 1: action = (listLength ?? 0) == 0 ? nil : .delete(obj: ["list"], at: .index(UInt64(dice.int(listLength!))))
                default: action = (textLength ?? 0) == 0 ? nil : .delete(obj: ["text"], at: .index(UInt64(dice.int(textLength!))))
                }
            case 5: action = .increment(obj: [], at: .key("counter"), by: Int64(dice.int(in: -5...5)))
            case 6:
                action = listLength.map { length in
                    let index = dice.int(length + 1)
                    return .splice(obj: ["list"], index: UInt64(index), delete: Int64(dice.int(min(2, length - index) + 1)),
                                   values: (0..<dice.int(4)).map { _ in scalar(&dice) })
                }
            case 7:
                action = textLength.map { length in
                    let index = dice.int(length + 1)
                    return .spliceText(obj: ["text"], index: UInt64(index), delete: Int64(dice.int(min(3, length - index) + 1)),
                                       text: dice.pick(snippets))
                }
            case 8:
                action = text.map { scalars in
                    var new = String.UnicodeScalarView(scalars)
                    let start = dice.int(scalars.count + 1), end = start + dice.int(scalars.count - start + 1)
                    let lower = new.index(new.startIndex, offsetBy: start), upper = new.index(new.startIndex, offsetBy: end)
                    new.replaceSubrange(lower..<upper, with: dice.pick(snippets).unicodeScalars)
                    return .updateText(obj: ["text"], text: String(new))
                }
            case 9, 10:
                if let length = textLength, length > 0 {
                    let start = dice.int(length), end = start + 1 + dice.int(length - start)
                    let name = dice.pick(["bold", "link"])
                    action = dice.bool()
                        ? .mark(obj: ["text"], start: UInt64(start), end: UInt64(end), name: name, value: scalar(&dice), expand: expand(&dice))
                        : .unmark(obj: ["text"], start: UInt64(start), end: UInt64(end), name: name, expand: expand(&dice))
                }
            case 11:
                action = .commit(message: dice.bool() ? nil : "m\(dice.int(10))",
                                 time: dice.bool() ? nil : 1_700_000_100_000 + Int64(dice.int(100_000)))
            case 12:
                if let name = ["d", "e", "f"].first(where: { !peers.contains($0) }) { action = .fork(as: name, actor: S.actor(name)) }
            case 13:
                let others = peers.filter { $0 != peer }
                if !others.isEmpty { action = .merge(from: dice.pick(others)) }
            case 14: action = .save(into: "s\(dice.int(2))")
            default:
                if !slots.isEmpty {
                    loads += 1
                    let target = dice.bool() ? peer : (["g", "h"].first { !peers.contains($0) } ?? peer)
                    let step = EditScript.Step(peer: target, .load(from: dice.pick(slots), actor: S.actor("l\(loads)")))
                    if (try? EditScriptRunner.run(script(initial, steps + [step]))) != nil {
                        steps.append(step)
                        if !peers.contains(target) { peers.append(target) }
                    }
                }
            }
            guard let action else { continue }
            let step = EditScript.Step(peer: peer, action)
            guard (try? EditScriptRunner.run(script(initial, steps + [step]))) != nil else { continue }
            steps.append(step)
            if case .fork(let name, _) = action { peers.append(name) }
            if case .save(let slot) = action, !slots.contains(slot) { slots.append(slot) }
        }
        return script(initial, steps, result: peers[choices.count % peers.count])
    }
}
