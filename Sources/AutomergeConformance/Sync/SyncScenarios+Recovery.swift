import Automerge
import Foundation

extension SyncScenario {
    static let recovery: [SyncScenario] = [
        SyncScenario("reconnect after one side lost recent data") { context in
            // b restarts from its document and state of an earlier sync.
            let a = try context.peer(0, SyncFixtures.document(changes: 20))
            let b = try context.peer(1)
            try context.sync(a, b)
            let (earlierDocument, earlierState) = (try b.save(), try b.encodeState())
            try a.put(key: "later", value: "1")
            try b.put(key: "later-b", value: "1")
            try context.sync(a, b)
            let restarted = try context.makePeer(1, earlierDocument)
            try restarted.decodeState(earlierState)
            try a.resetState()
            try context.sync(a, restarted)
            try context.expectConverged(a, restarted)
        },
        SyncScenario("reconnect after one side lost everything") { context in
            // b comes back empty with no state; a keeps its session.
            let a = try context.peer(0, SyncFixtures.document(changes: 20))
            let b = try context.peer(1)
            try context.sync(a, b)
            try a.put(key: "later", value: "1")
            let empty = try context.peer(1)
            try context.sync(a, empty)
            try context.expectConverged(a, empty)
        },
        SyncScenario("their last sync names changes we lack") { context in
            // b restores an older backup with no state; a resumes from its
            // saved state, whose shared heads b no longer has: b asks a to
            // start over (a reset message).
            let a = try context.peer(0, SyncFixtures.document(changes: 10))
            let b = try context.peer(1)
            try context.sync(a, b)
            let backup = try b.save()
            try a.put(key: "later", value: "1")
            try context.sync(a, b)
            let savedState = try a.encodeState()
            let restored = try context.makePeer(1, backup)
            try restored.put(key: "after-restore", value: "b")
            try a.resetState()
            try a.decodeState(savedState)
            try context.sync(a, restored)
            try context.expectConverged(a, restored)
        },
        SyncScenario("lossy link with reconnects") { context in
            let a = try context.peer(0, SyncFixtures.document(actor: "0a", changes: 15, tag: "a"))
            let b = try context.peer(1, SyncFixtures.document(actor: "0b", changes: 15, tag: "b"))
            for round in 0..<6 {
                try a.put(key: "a\(round % 3)", value: "\(round)")
                try b.splice(key: "text", position: round, delete: 1, text: "b\(round)")
                try context.sync(a, b, faults: .lossy, maxRounds: 200, maxReconnects: 20)
            }
            try context.expectConverged(a, b)
        },
    ]

    static let falsePositives: [SyncScenario] = [
        SyncScenario("false-positive bloom hit") { context in
            // c0 <- ... <- c9 <- n1 (a) and c9 <- n2 (b), n2 a false positive
            // of the filter holding {n1}; last sync c9.
            let base = SyncFixtures.document(actor: "abc123", changes: 10)
            var (one, two) = (base, base)
            for attempt in 0... {
                one = SyncFixtures.fork(base, actor: "01234567")
                try one.put(obj: .ROOT, key: "x", value: .String("\(attempt) @ n1"))
                one.commitReproducibly()
                two = SyncFixtures.fork(base, actor: "89abcdef")
                try two.put(obj: .ROOT, key: "x", value: .String("\(attempt) @ n2"))
                two.commitReproducibly()
                if SyncBloomFilter(hashes: one.heads()).contains(two.heads().first!) { break }
            }
            let a = try context.peer(0, one), b = try context.peer(1, two)
            let state = Bytes.syncState(sharedHeads: base.heads())
            try a.decodeState(state)
            try b.decodeState(state)
            try context.sync(a, b)
            try context.expectConverged(a, b)
        },
        SyncScenario("chain of false positives") { context in
            // c4 <- c5 (a) and c4 <- n2c1 <- n2c2 <- n2c3 (b), n2c1 and n2c2
            // both false positives of the filter holding {c5}; last sync c4.
            let base = SyncFixtures.document(actor: "abc123", changes: 10)
            let one = SyncFixtures.fork(base, actor: "abc123")
            try one.put(obj: .ROOT, key: "x", value: .Int(5))
            one.commitReproducibly()
            let bloom = SyncBloomFilter(hashes: one.heads())
            var two = SyncFixtures.fork(base, actor: "89abcdef")
            for label in ["at 89abcdef", "again"] {
                let start = two
                for attempt in 0... {
                    two = SyncFixtures.fork(start, actor: "89abcdef")
                    try two.put(obj: .ROOT, key: "x", value: .String("\(attempt) \(label)"))
                    two.commitReproducibly()
                    if bloom.contains(two.heads().first!) { break }
                }
            }
            try two.put(obj: .ROOT, key: "x", value: .String("final @ 89abcdef"))
            two.commitReproducibly()
            let a = try context.peer(0, one), b = try context.peer(1, two)
            let state = Bytes.syncState(sharedHeads: base.heads())
            try a.decodeState(state)
            try b.decodeState(state)
            try context.sync(a, b)
            try context.expectConverged(a, b)
        },
    ]
}
