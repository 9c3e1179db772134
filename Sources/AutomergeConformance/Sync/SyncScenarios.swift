import Automerge
import Foundation

extension SyncScenario {
    /// Every built-in scenario, in the order reports list them.
    public static let all: [SyncScenario] = basics + history + recovery + falsePositives + special

    static let basics: [SyncScenario] = [
        SyncScenario("empty and empty") { context in
            let (a, b) = (try context.peer(0), try context.peer(1))
            let traffic = try context.sync(a, b, maxRounds: 4)
            try context.expectConverged(a, b)
            try context.expect(try a.heads().isEmpty, "empty peers gained heads")
            try context.expect(traffic.totalMessages <= 2, "empty peers exchanged \(traffic.totalMessages) messages, expected at most 2")
        },
        SyncScenario("one side empty") { context in
            let a = try context.peer(0, SyncFixtures.document(changes: 30))
            let b = try context.peer(1)
            try context.sync(a, b)
            try context.expectConverged(a, b)
        },
        SyncScenario("other side empty") { context in
            let a = try context.peer(0)
            let b = try context.peer(1, SyncFixtures.document(changes: 30))
            try context.sync(a, b)
            try context.expectConverged(a, b)
        },
        SyncScenario("one-sided changes") { context in
            let base = SyncFixtures.document(changes: 20)
            let ahead = SyncFixtures.fork(base, actor: "bb", adding: 3, tag: "ahead")
            let a = try context.peer(0, base), b = try context.peer(1, ahead)
            try context.sync(a, b)
            try context.expectConverged(a, b)
        },
        SyncScenario("diverged, no prior state") { context in
            let base = SyncFixtures.document(changes: 20)
            let a = try context.peer(0, base), b = try context.peer(1, base)
            try a.put(key: "a", value: "from a")
            try b.splice(key: "text", position: 0, delete: 2, text: "b was here ")
            try context.sync(a, b)
            try context.expectConverged(a, b)
        },
        SyncScenario("equal heads need no reply") { context in
            let base = SyncFixtures.document(changes: 12)
            let a = try context.peer(0, base), b = try context.peer(1, base)
            let traffic = try context.sync(a, b, maxRounds: 3)
            try context.expect(traffic.totalMessages <= 2, "peers with equal heads sent \(traffic.totalMessages) messages, expected 2")
            try context.expect(traffic.changeEntries == [0, 0], "peers with equal heads sent changes")
            try context.expectConverged(a, b)
        },
        SyncScenario("simultaneous messages") { context in
            let a = try context.peer(0, SyncFixtures.document(actor: "01", changes: 5, tag: "x"))
            let b = try context.peer(1, SyncFixtures.document(actor: "02", changes: 5, tag: "y"))
            try context.sync(a, b, simultaneous: true)
            try context.expectConverged(a, b)
            try a.put(key: "x", value: "5")
            try b.put(key: "y", value: "5")
            try context.sync(a, b, simultaneous: true)
            try context.expectConverged(a, b, "after more simultaneous edits")
        },
    ]

    static let history: [SyncScenario] = [
        SyncScenario("diverged with prior state") { context in
            let base = SyncFixtures.document(changes: 30)
            let a = try context.peer(0, base), b = try context.peer(1)
            try context.sync(a, b)
            try a.put(key: "later", value: "a")
            try b.splice(key: "text", position: 1, delete: 1, text: "B")
            let traffic = try context.sync(a, b)
            try context.expectConverged(a, b)
            let sent = traffic.changeEntries[0] + traffic.changeEntries[1]
            try context.expect(sent <= 2, "resuming a session sent \(sent) change entries for 2 new changes")
        },
        SyncScenario("state saved and restored") { context in
            let a = try context.peer(0, SyncFixtures.document(changes: 30))
            let b = try context.peer(1)
            try context.sync(a, b)
            let (stateA, stateB) = (try a.encodeState(), try b.encodeState())
            try a.put(key: "after", value: "restart")
            try b.put(key: "other", value: "restart")
            try a.resetState()
            try b.resetState()
            try a.decodeState(stateA)
            try b.decodeState(stateB)
            let traffic = try context.sync(a, b)
            try context.expectConverged(a, b)
            let sent = traffic.changeEntries[0] + traffic.changeEntries[1]
            try context.expect(sent <= 2, "a restored session sent \(sent) change entries for 2 new changes")
        },
        SyncScenario("branching and merging") { context in
            let one = SyncFixtures.document(actor: "01234567", changes: 1, tag: "c0")
            let two = SyncFixtures.fork(one, actor: "89abcdef")
            let three = SyncFixtures.fork(one, actor: "fedcba98")
            try three.put(obj: .ROOT, key: "x", value: .Int(1))
            three.commitReproducibly()
            for round in 1..<20 {
                try one.put(obj: .ROOT, key: "n1", value: .Int(Int64(round)))
                try two.put(obj: .ROOT, key: "n2", value: .Int(Int64(round)))
                one.commitReproducibly()
                two.commitReproducibly()
                let fromOne = one.fork()
                try one.merge(other: two)
                try two.merge(other: fromOne)
            }
            let a = try context.peer(0, one), b = try context.peer(1, two)
            try context.sync(a, b)
            try context.expectConverged(a, b, "after the first sync")
            // The third branch reaches b only, concurrent to the last sync's heads.
            try two.merge(other: three)
            try one.put(obj: .ROOT, key: "n1", value: .String("final"))
            try two.put(obj: .ROOT, key: "n1", value: .String("final"))
            let state = (try a.encodeState(), try b.encodeState())
            let a2 = try context.peer(0, one), b2 = try context.peer(1, two)
            try a2.decodeState(state.0)
            try b2.decodeState(state.1)
            try context.sync(a2, b2)
            try context.expectConverged(a2, b2)
        },
    ]
}
