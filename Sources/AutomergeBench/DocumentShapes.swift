import Automerge
import AutomergeConformance
import Foundation

/// Seeded generators of the document shapes whose loads the performance
/// issue budgets, so that the suite covers them without the real files
/// (which are not ours to commit). Each shape imitates what its real
/// counterpart is made of, not its bytes: counts of objects, characters,
/// changes and actors of the same order, made through the public API as an
/// app would make them.
enum DocumentShape: String, CaseIterable {
    /// ~12,000 small objects (7,500 maps, 3,000 lists, 1,500 texts) from
    /// two changes: a JSON data set imported in two batches.
    case objects
    /// ~3,800 objects of which ~2,550 texts holding ~900k characters,
    /// typed in ~300 changes by three actors: a notes app.
    case texts
    /// A document chunk of 262,144 one-op changes from 147 actors, then
    /// 449 change chunks: 400 new and 49 repeating changes the document
    /// already holds (a log replayed over its snapshot).
    case history
    /// ~9.4M ops from one actor: long typing sessions in 24 texts, a list
    /// of 1.2M numbers and 1M puts over 200,000 keys.
    case large

    /// What the shape stands for, for the benchmark table.
    var summary: String {
        switch self {
        case .objects: return "12,000 small objects from 2 changes"
        case .texts: return "2,550 texts, 900k characters, 300 changes"
        case .history: return "262k changes, 147 actors, 449 change chunks"
        case .large: return "9.4M ops, one actor"
        }
    }

    /// The shape's bytes as a user's file holds them.
    func generate() throws -> Data {
        var random = SeededGenerator(seed: 0x5EED_0000 &+ UInt64(Self.allCases.firstIndex(of: self)!))
        switch self {
        case .objects: return try Self.objects(&random)
        case .texts: return try Self.texts(&random)
        case .history: return try Self.history(&random)
        case .large: return try Self.large(&random)
        }
    }

    /// The generated file, made once per generator version and kept in the
    /// temporary directory (the large shapes take seconds to make).
    func file() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("automerge-shapes-v2")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("\(rawValue).automerge")
        if !FileManager.default.fileExists(atPath: file.path) {
            let partial = folder.appendingPathComponent("\(rawValue).partial-\(getpid())")
            try generate().write(to: partial)
            try? FileManager.default.removeItem(at: file)
            try FileManager.default.moveItem(at: partial, to: file)
        }
        return file
    }

    static func actor(_ index: Int) -> ActorId {
        var bytes = [UInt8](repeating: 0, count: 16)
        withUnsafeBytes(of: UInt64(index + 1).bigEndian) { bytes.replaceSubrange(8..<16, with: $0) }
        bytes[0] = 0xA5
        return ActorId(data: Data(bytes))!
    }

    static let words = ["the", "of", "and", "a", "to", "in", "is", "you", "that", "it", "he", "was", "for", "on",
                        "are", "as", "with", "his", "they", "at", "be", "this", "have", "from", "or", "one", "had",
                        "by", "word", "but", "not", "what", "all", "were", "we", "when", "your", "can", "said",
                        "there", "use", "an", "each", "which", "she", "do", "how", "their", "if", "will", "up",
                        "other", "about", "out", "many", "then", "them", "these", "so", "some", "her", "would",
                        "make", "like", "him", "into", "time", "has", "look", "two", "more", "write", "go", "see",
                        "number", "no", "way", "could", "people", "my", "than", "first", "water", "been", "call",
                        "who", "oil", "its", "now", "find", "long", "down", "day", "did", "get", "come", "made",
                        "may", "part", "café", "naïve", "🙂", "über", "日本"]

    static func phrase(_ count: Int, _ random: inout SeededGenerator) -> String {
        (0..<count).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
    }

    /// The records in a first change; a second change then touches every
    /// record (a word added to each title, a tag and a flag appended, a
    /// name replaced), so each sequence holds elements of both changes,
    /// their counters tens of thousands apart.
    private static func objects(_ random: inout SeededGenerator) throws -> Data {
        let document = Document()
        document.actor = actor(0)
        let records = try document.putObject(obj: .ROOT, key: "records", ty: .List)
        for index in 0..<1500 { try record(index, in: records, document, &random) }
        document.commitWith(timestamp: Date(timeIntervalSince1970: 1_700_000_000))
        for index in 0..<1500 {
            guard case .Object(let record, _) = try document.get(obj: records, index: UInt64(index)),
                  case .Object(let title, _) = try document.get(obj: record, key: "title"),
                  case .Object(let tags, _) = try document.get(obj: record, key: "tags"),
                  case .Object(let owner, _) = try document.get(obj: record, key: "owner"),
                  case .Object(let meta, _) = try document.get(obj: record, key: "meta"),
                  case .Object(let flags, _) = try document.get(obj: meta, key: "flags") else { continue }
            try document.spliceText(obj: title, start: document.length(obj: title), delete: 0, value: " " + phrase(1, &random))
            try document.insert(obj: tags, index: document.length(obj: tags), value: .String(words.randomElement(using: &random)!))
            try document.insert(obj: flags, index: 0, value: .Int(Int64.random(in: 0...9, using: &random)))
            try document.put(obj: owner, key: "name", value: .String(phrase(2, &random)))
        }
        document.commitWith(timestamp: Date(timeIntervalSince1970: 1_700_000_060))
        return document.save()
    }

    /// One record: five maps, two lists and a text.
    private static func record(_ index: Int, in records: ObjId, _ document: Document, _ random: inout SeededGenerator) throws {
        let record = try document.insertObject(obj: records, index: UInt64(index), ty: .Map)
        try document.put(obj: record, key: "id", value: .Int(Int64(index)))
        try document.put(obj: record, key: "done", value: .Boolean(Bool.random(using: &random)))
        let title = try document.putObject(obj: record, key: "title", ty: .Text)
        try document.spliceText(obj: title, start: 0, delete: 0, value: phrase(2, &random))
        let tags = try document.putObject(obj: record, key: "tags", ty: .List)
        for tag in 0..<Int.random(in: 1...3, using: &random) {
            try document.insert(obj: tags, index: UInt64(tag), value: .String(words.randomElement(using: &random)!))
        }
        let owner = try document.putObject(obj: record, key: "owner", ty: .Map)
        try document.put(obj: owner, key: "name", value: .String(phrase(2, &random)))
        try document.put(obj: owner, key: "email", value: .String("user\(index % 97)@example.com"))
        let address = try document.putObject(obj: owner, key: "address", ty: .Map)
        try document.put(obj: address, key: "city", value: .String(words.randomElement(using: &random)!))
        try document.put(obj: address, key: "zip", value: .Uint(UInt64.random(in: 10000...99999, using: &random)))
        let meta = try document.putObject(obj: record, key: "meta", ty: .Map)
        try document.put(obj: meta, key: "created", value: .Timestamp(Date(timeIntervalSince1970: 1_600_000_000 + Double(index))))
        let flags = try document.putObject(obj: meta, key: "flags", ty: .List)
        for flag in 0..<2 { try document.insert(obj: flags, index: UInt64(flag), value: .Int(Int64.random(in: 0...9, using: &random))) }
        let stats = try document.putObject(obj: meta, key: "stats", ty: .Map)
        try document.put(obj: stats, key: "views", value: .Counter(Int64.random(in: 0...1000, using: &random)))
        try document.put(obj: stats, key: "score", value: .F64(Double.random(in: 0...1, using: &random)))
    }

    private static func texts(_ random: inout SeededGenerator) throws -> Data {
        let peers = (0..<3).map { index -> Document in
            let peer = Document()
            peer.actor = actor(index)
            return peer
        }
        let notes = try peers[0].putObject(obj: .ROOT, key: "notes", ty: .List)
        let sections = try peers[0].putObject(obj: .ROOT, key: "sections", ty: .Map)
        peers[0].commitWith(timestamp: Date(timeIntervalSince1970: 1_700_000_000))
        for peer in peers.dropFirst() { try peer.merge(other: peers[0]) }
        var clock = 1_700_000_000.0
        for round in 0..<100 {
            for (index, peer) in peers.enumerated() {
                try typeNotes(round: round, peer: peer, notes: notes, sections: sections, writer: index, &random)
                clock += Double.random(in: 10...600, using: &random)
                peer.commitWith(timestamp: Date(timeIntervalSince1970: clock))
            }
            // Peers meet now and then; between meetings their edits are concurrent.
            if round % 4 == 3 {
                for peer in peers.dropFirst() { try peers[0].merge(other: peer) }
                for peer in peers.dropFirst() { try peer.merge(other: peers[0]) }
            }
        }
        for peer in peers.dropFirst() { try peers[0].merge(other: peer) }
        return peers[0].save()
    }

    /// A round of one writer: about four new notes typed in bursts, and
    /// edits of notes it already sees (a word changed, a line deleted).
    private static func typeNotes(round: Int, peer: Document, notes: ObjId, sections: ObjId, writer: Int,
                                  _ random: inout SeededGenerator) throws {
        for _ in 0..<Int.random(in: 3...5, using: &random) {
            let note = try peer.insertObject(obj: notes, index: peer.length(obj: notes), ty: .Map)
            let title = try peer.putObject(obj: note, key: "title", ty: .Text)
            try peer.spliceText(obj: title, start: 0, delete: 0, value: phrase(Int.random(in: 2...5, using: &random), &random))
            let body = try peer.putObject(obj: note, key: "body", ty: .Text)
            try type(into: body, characters: Int.random(in: 300...1100, using: &random), peer, &random)
        }
        if round % 5 == writer {
            let section = try peer.putObject(obj: sections, key: "s\(round)", ty: .Text)
            try type(into: section, characters: 200, peer, &random)
        }
        let count = peer.length(obj: notes)
        for _ in 0..<3 where count > 0 {
            guard case .Object(let note, _) = try peer.get(obj: notes, index: UInt64.random(in: 0..<count, using: &random)),
                  case .Object(let body, _) = try peer.get(obj: note, key: "body") else { continue }
            let length = peer.length(obj: body)
            guard length > 20 else { continue }
            let start = Int64.random(in: 0..<Int64(length) - 10, using: &random)
            try peer.spliceText(obj: body, start: UInt64(start), delete: Int64.random(in: 0...8, using: &random),
                                value: words.randomElement(using: &random)!)
        }
    }

    /// Types about `characters` characters word by word, mostly at the end,
    /// with backspaces and now and then a jump back to insert a word.
    private static func type(into text: ObjId, characters: Int, _ document: Document, _ random: inout SeededGenerator) throws {
        var length = document.length(obj: text)
        let end = length + UInt64(characters)
        while length < end {
            let word = words.randomElement(using: &random)! + " "
            let jump = Int.random(in: 0..<100, using: &random) == 0 && length > 0
            let at = jump ? UInt64.random(in: 0..<length, using: &random) : length
            for character in word {
                try document.spliceText(obj: text, start: at + document.length(obj: text) - length, delete: 0, value: String(character))
            }
            length = document.length(obj: text)
            if Int.random(in: 0..<30, using: &random) == 0 {
                try document.spliceText(obj: text, start: length - 2, delete: 2, value: "")
                length -= 2
            }
        }
    }
}
