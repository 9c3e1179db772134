import Automerge
import AutomergeConformance
import Foundation

/// The inputs of `automerge-bench scale`, made deterministically (seeded,
/// fixed actors and times) through the public API and written once into
/// `automerge-scale-v1` in the temporary directory, so that ours and the Rust
/// program read exactly the same bytes.
enum ScaleWorkloads {
    /// Changes of the apply workloads.
    static let applyChanges = 10_000
    /// Ops each side of the merge workload makes after the fork.
    static let mergeOps = 100_000
    /// Ops of the fork workloads' document.
    static let forkOps = 1_000_000

    static var folder: URL { FileManager.default.temporaryDirectory.appendingPathComponent("automerge-scale-v1") }

    /// The files `names` in the cache, made by `make` (one `Data` per name) if any is missing.
    static func cached(_ names: [String], _ make: () throws -> [Data]) throws -> [URL] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let files = names.map { folder.appendingPathComponent($0) }
        if files.allSatisfy({ FileManager.default.fileExists(atPath: $0.path) }) { return files }
        let contents = try make()
        precondition(contents.count == files.count)
        for (file, data) in zip(files, contents) {
            let partial = file.appendingPathExtension("partial-\(getpid())")
            try data.write(to: partial)
            try? FileManager.default.removeItem(at: file)
            try FileManager.default.moveItem(at: partial, to: file)
        }
        return files
    }

    /// A 10,000-character base document, and 10,000 changes made on it by three
    /// actors: puts into a map of 200 keys and words typed into (or cut from)
    /// the text, one to three ops a change. Actors work in sessions of a few
    /// changes and now and then two of them sync, so changes depend on other
    /// actors' changes. Files: the base save, the change chunks in the order
    /// they were made (causal) concatenated, and each chunk's length, one a line.
    static func applyFiles() throws -> (base: URL, chunks: URL, lengths: URL) {
        let files = try cached(["apply-base.automerge", "apply-chunks.bin", "apply-lengths.txt"]) {
            var random = SeededGenerator(seed: 0x5CA1_E001)
            var clock = 1_700_000_000.0
            let base = Document()
            base.actor = DocumentShape.actor(200)
            let props = try base.putObject(obj: .ROOT, key: "props", ty: .Map)
            let body = try base.putObject(obj: .ROOT, key: "body", ty: .Text)
            for key in 0..<200 { try base.put(obj: props, key: "k\(key)", value: .Int(Int64(key))) }
            while base.length(obj: body) < 10_000 {
                try base.spliceText(obj: body, start: base.length(obj: body), delete: 0,
                                    value: DocumentShape.phrase(20, &random) + "\n")
            }
            base.commitWith(timestamp: Date(timeIntervalSince1970: clock))
            let peers = (0..<3).map { index -> Document in
                let peer = base.fork()
                peer.actor = DocumentShape.actor(201 + index)
                return peer
            }
            var chunks = Data(), lengths: [Int] = []
            var peer = peers[0], sessionLeft = 0
            for _ in 0..<applyChanges {
                if sessionLeft == 0 {
                    peer = peers.randomElement(using: &random)!
                    sessionLeft = Int.random(in: 1...12, using: &random)
                }
                sessionLeft -= 1
                let before = peer.heads()
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let length = peer.length(obj: body)
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0...4:
                        try peer.put(obj: props, key: "k\(Int.random(in: 0..<200, using: &random))",
                                     value: .Int(Int64.random(in: 0...1_000_000, using: &random)))
                    case 5...8:
                        try peer.spliceText(obj: body, start: UInt64.random(in: 0...length, using: &random), delete: 0,
                                            value: DocumentShape.words.randomElement(using: &random)! + " ")
                    default:
                        try peer.spliceText(obj: body, start: UInt64.random(in: 0..<length - 8, using: &random),
                                            delete: Int64.random(in: 1...8, using: &random))
                    }
                }
                clock += Double.random(in: 1...30, using: &random)
                peer.commitWith(timestamp: Date(timeIntervalSince1970: clock))
                let chunk = try peer.encodeChangesSince(heads: before)
                chunks.append(chunk)
                lengths.append(chunk.count)
                if Int.random(in: 0..<8, using: &random) == 0 {
                    let pair = peers.shuffled(using: &random)
                    try pair[0].merge(other: pair[1])
                    try pair[1].merge(other: pair[0])
                }
            }
            return [base.save(), chunks, Data(lengths.map(String.init).joined(separator: "\n").utf8)]
        }
        return (files[0], files[1], files[2])
    }

    /// The concatenated chunks of ``applyFiles()`` split at their lengths.
    static func applyChunks(_ chunks: URL, lengths: URL) throws -> [Data] {
        let bytes = try Data(contentsOf: chunks)
        var pieces: [Data] = [], at = bytes.startIndex
        for line in String(decoding: try Data(contentsOf: lengths), as: UTF8.self).split(separator: "\n") {
            let end = at + Int(line)!
            pieces.append(bytes.subdata(in: at..<end))
            at = end
        }
        guard at == bytes.endIndex else { throw ScaleError("\(lengths.path) does not add up to \(chunks.path)") }
        return pieces
    }

    /// Two documents forked from a base of a 1,000-item list and a
    /// 2,000-character text, each then making ``mergeOps`` ops: items inserted
    /// at random places and words typed at a cursor that now and then jumps,
    /// a commit every 200 ops or so. Files: the left and the right saves.
    static func mergeFiles() throws -> (left: URL, right: URL) {
        let files = try cached(["merge-left.automerge", "merge-right.automerge"]) {
            var random = SeededGenerator(seed: 0x5CA1_E002)
            let base = Document()
            base.actor = DocumentShape.actor(300)
            let list = try base.putObject(obj: .ROOT, key: "items", ty: .List)
            for index in 0..<1000 { try base.insert(obj: list, index: UInt64(index), value: .Int(Int64(index))) }
            let text = try base.putObject(obj: .ROOT, key: "notes", ty: .Text)
            while base.length(obj: text) < 2000 {
                try base.spliceText(obj: text, start: base.length(obj: text), delete: 0, value: DocumentShape.phrase(10, &random) + "\n")
            }
            base.commitReproducibly()
            return try (1...2).map { side -> Data in
                let document = base.fork()
                document.actor = DocumentShape.actor(300 + side)
                var ops = 0, sinceCommit = 0, cursor = document.length(obj: text)
                while ops < mergeOps {
                    if Bool.random(using: &random) {
                        let count = document.length(obj: list)
                        try document.insert(obj: list, index: UInt64.random(in: 0...count, using: &random), value: .Int(Int64(ops)))
                        ops += 1
                        sinceCommit += 1
                    } else {
                        if Int.random(in: 0..<40, using: &random) == 0 {
                            cursor = UInt64.random(in: 0...document.length(obj: text), using: &random)
                        }
                        let word = DocumentShape.words.randomElement(using: &random)! + " "
                        for character in word.unicodeScalars {
                            try document.spliceText(obj: text, start: cursor, delete: 0, value: String(character))
                            cursor += 1
                        }
                        ops += word.unicodeScalars.count
                        sinceCommit += word.unicodeScalars.count
                    }
                    if sinceCommit >= 200 {
                        document.commitReproducibly()
                        sinceCommit = 0
                    }
                }
                document.commitReproducibly()
                return document.save()
            }
        }
        return (files[0], files[1])
    }

    /// One actor's ``forkOps``-op document: rounds of ~300 characters typed
    /// word by word (mostly at the end, with backspaces and rare jumps), 100
    /// list items (mostly appended) and 100 puts over 20,000 keys, a commit a
    /// round. Files: the save, and the heads of the change in the middle of
    /// its history (hex, one a line).
    static func forkFiles() throws -> (document: URL, heads: URL) {
        let files = try cached(["fork.automerge", "fork-heads.txt"]) {
            var random = SeededGenerator(seed: 0x5CA1_E003)
            let document = Document()
            document.actor = DocumentShape.actor(310)
            let text = try document.putObject(obj: .ROOT, key: "text", ty: .Text)
            let list = try document.putObject(obj: .ROOT, key: "list", ty: .List)
            let map = try document.putObject(obj: .ROOT, key: "map", ty: .Map)
            var ops = 3, textLength: UInt64 = 0, listLength: UInt64 = 0, puts = 0
            while ops < forkOps {
                var typed = 0
                while typed < 300 {
                    let word = DocumentShape.words.randomElement(using: &random)! + " "
                    let at = Int.random(in: 0..<200, using: &random) == 0 ? UInt64.random(in: 0...textLength, using: &random) : textLength
                    try document.spliceText(obj: text, start: at, delete: 0, value: word)
                    let count = word.unicodeScalars.count
                    textLength += UInt64(count)
                    typed += count
                    if Int.random(in: 0..<40, using: &random) == 0 {
                        try document.spliceText(obj: text, start: textLength - 2, delete: 2)
                        textLength -= 2
                        typed += 2
                    }
                }
                for _ in 0..<100 {
                    let at = Int.random(in: 0..<10, using: &random) == 0 ? UInt64.random(in: 0...listLength, using: &random) : listLength
                    try document.insert(obj: list, index: at, value: .Int(Int64(listLength)))
                    listLength += 1
                }
                for _ in 0..<100 {
                    try document.put(obj: map, key: "key\(puts % 20_000)", value: .Uint(UInt64(puts)))
                    puts += 1
                }
                ops += typed + 200
                document.commitReproducibly()
            }
            let history = document.getHistory()
            let middle = history[history.count / 2]
            return [document.save(), Data((middle.description + "\n").utf8)]
        }
        return (files[0], files[1])
    }

    /// The editing trace typed concurrently by `actors` actors: the trace
    /// cut into runs of 100 to 500 edits, actors taking turns, each applying
    /// its runs to its own replica (positions and deletions clamped to that
    /// replica's text), a commit every 50 edits and at the end of a run; every
    /// ``syncEvery`` runs all replicas sync, except in the last ``syncEvery``
    /// runs or more, so that each replica ends with changes the others lack.
    /// Files: each actor's final save, first actor first.
    static func concurrentFiles(actors: Int, trace url: URL) throws -> [URL] {
        let name = url.deletingPathExtension().lastPathComponent
        return try cached((0..<actors).map { "concurrent-\(actors)-\(name)-\($0).automerge" }) {
            let trace = try EditTrace(contentsOf: url)
            var random = SeededGenerator(seed: 0x5CA1_E004 &+ UInt64(actors))
            let base = Document()
            base.actor = DocumentShape.actor(400)
            let text = try base.putObject(obj: .ROOT, key: "text", ty: .Text)
            base.commitReproducibly()
            let replicas = (0..<actors).map { index -> Document in
                let replica = base.fork()
                replica.actor = DocumentShape.actor(401 + index)
                return replica
            }
            var ends: [Int] = [], at = 0
            while at < trace.edits.count {
                at = min(trace.edits.count, at + Int.random(in: 100...500, using: &random))
                ends.append(at)
            }
            var start = 0
            for (run, end) in ends.enumerated() {
                let replica = replicas[run % actors]
                for (offset, edit) in trace.edits[start..<end].enumerated() {
                    let length = replica.length(obj: text)
                    let position = min(edit.position, length)
                    let delete = min(edit.deleteCount, Int64(length - position))
                    try replica.spliceText(obj: text, start: position, delete: delete, value: edit.insert)
                    if offset % 50 == 49 { replica.commitReproducibly() }
                }
                replica.commitReproducibly()
                start = end
                // No sync in the last syncEvery runs or more: every replica ends with changes the others lack.
                if (run + 1) % syncEvery == 0 && run + 1 + syncEvery <= ends.count {
                    for other in replicas.dropFirst() { try replicas[0].merge(other: other) }
                    for other in replicas.dropFirst() { try other.merge(other: replicas[0]) }
                }
            }
            return replicas.map { $0.save() }
        }
    }

    /// Runs between two syncs of the concurrent trace's replicas.
    static let syncEvery = 10
}

/// A workload's inputs are not what they should be.
struct ScaleError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
