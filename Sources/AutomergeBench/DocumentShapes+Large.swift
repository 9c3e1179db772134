import Automerge
import AutomergeConformance
import Foundation

extension DocumentShape {
    /// 262,144 one-op changes by 147 actors in sessions (a few of them
    /// doing most of the work), seconds apart, of small values, with a lagging replica whose changes are concurrent with
    /// the latest ones every 512 changes; saved, then followed by 49 change
    /// chunks the document already holds and 400 it does not.
    static func history(_ random: inout SeededGenerator) throws -> Data {
        let document = Document()
        let replica = Document()
        replica.actor = actor(146)
        let settings = try document.putObject(obj: .ROOT, key: "settings", ty: .Map)
        let log = try document.putObject(obj: .ROOT, key: "log", ty: .Text)
        let items = try document.putObject(obj: .ROOT, key: "items", ty: .List)
        let visits = try document.putObject(obj: .ROOT, key: "visits", ty: .Map)
        for page in 0..<64 { try document.put(obj: visits, key: "page\(page)", value: .Counter(0)) }
        var clock = 1_600_000_000.0
        func commit(_ peer: Document) {
            clock += Double(Int.random(in: 1...3, using: &random))
            peer.commitWith(timestamp: Date(timeIntervalSince1970: clock))
        }
        func edit(_ peer: Document) throws {
            switch Int.random(in: 0..<8, using: &random) {
            case 0...2:
                try peer.put(obj: settings, key: "k\(Int.random(in: 0..<50, using: &random))",
                             value: .Int(Int64.random(in: 0...100, using: &random)))
            case 3...4:
                try peer.spliceText(obj: log, start: peer.length(obj: log), delete: 0,
                                    value: String(words.randomElement(using: &random)!.first!))
            case 5:
                let length = peer.length(obj: items)
                try peer.insert(obj: items, index: UInt64.random(in: 0...length, using: &random), value: .Int(Int64(length)))
            default:
                try peer.increment(obj: visits, key: "page\(Int.random(in: 0..<64, using: &random))", by: 1)
            }
        }
        commit(document)
        var duplicateFrom: Set<ChangeHash> = []
        var shared: Set<ChangeHash> = [], replicaBefore: Set<ChangeHash> = []
        let total = 262_144
        var sessionLeft = 0
        for index in 1..<total {
            // Actors edit in sessions of a few hundred changes; a skewed
            // choice, the first actors having most of the sessions.
            if sessionLeft == 0 {
                document.actor = actor(Int(pow(Double.random(in: 0..<1, using: &random), 3) * 146))
                sessionLeft = Int.random(in: 1...400, using: &random)
            }
            sessionLeft -= 1
            try edit(document)
            commit(document)
            if index % 512 == 0 {
                try replica.applyEncodedChanges(encoded: document.encodeChangesSince(heads: shared))
                shared = document.heads()
                replicaBefore = replica.heads()
                try edit(replica)
                commit(replica)
            } else if index % 512 == 5 {
                try document.applyEncodedChanges(encoded: replica.encodeChangesSince(heads: replicaBefore))
            }
            if index == total - 49 { duplicateFrom = document.heads() }
        }
        var file = document.save()
        file.append(try document.encodeChangesSince(heads: duplicateFrom))
        for _ in 0..<400 {
            let heads = document.heads()
            try edit(document)
            commit(document)
            file.append(try document.encodeChangesSince(heads: heads))
        }
        return file
    }

    /// One actor, ~9.4M ops that compress as well as the real document's
    /// (a third of a byte an op): 24 texts typed word by word, mostly at
    /// the end (7.2M characters, with backspaces and rare jumps), a list of
    /// 1.2M counting numbers, 1M puts cycling over 200,000 keys; a commit
    /// every few hundred edits.
    static func large(_ random: inout SeededGenerator) throws -> Data {
        let document = Document()
        document.actor = actor(0)
        let chapters = try document.putObject(obj: .ROOT, key: "chapters", ty: .List)
        var edits = 0
        func edited() {
            edits += 1
            if edits % 300 == 0 { document.commitReproducibly() }
        }
        for chapter in 0..<24 {
            let text = try document.insertObject(obj: chapters, index: UInt64(chapter), ty: .Text)
            var length: UInt64 = 0
            while length < 300_000 {
                let word = words.randomElement(using: &random)! + " "
                let jump = Int.random(in: 0..<500, using: &random) == 0
                let at = jump ? UInt64.random(in: 0...length, using: &random) : length
                try document.spliceText(obj: text, start: at, delete: 0, value: word)
                length += UInt64(word.unicodeScalars.count)
                if Int.random(in: 0..<50, using: &random) == 0 {
                    try document.spliceText(obj: text, start: length - 3, delete: 3, value: "")
                    length -= 3
                }
                edited()
            }
        }
        let numbers = try document.putObject(obj: .ROOT, key: "numbers", ty: .List)
        for index in 0..<1_200_000 {
            try document.insert(obj: numbers, index: UInt64(index), value: .Int(Int64(index % 1000)))
            if index % 10 == 9 { edited() }
        }
        let table = try document.putObject(obj: .ROOT, key: "table", ty: .Map)
        for index in 0..<1_000_000 {
            try document.put(obj: table, key: "key\(index % 200_000)", value: .Uint(UInt64(index / 200_000)))
            if index % 10 == 9 { edited() }
        }
        document.commitReproducibly()
        return document.save()
    }
}
