import Foundation
import AutomergeConformance
import Testing
@testable import AutomergeStore

/// `find` returns exactly what a brute-force evaluation of the selector
/// over every document returns, whatever indexes exist, after random
/// creates, updates and deletes. The oracle is written apart from the
/// store's matcher, straight from Cloudant's rules. A failure prints its
/// seed and shrinks the selector to its smallest failing part.
@Suite("Query: find against a brute-force oracle")
struct FindPropertyTests {
    static let indexSets: [[(String, [String])]] = [
        [],
        [("byA", ["a"])],
        [("byTags", ["tags"]), ("byNested", ["c.d"])],
        [("byB", ["b", "a"]), ("byA", ["a"]), ("byId", ["_id"])],
    ]

    @Test("random documents, selectors, indexes and edits", arguments: [UInt64(11), 22, 33, 44])
    func findMatchesOracle(seed: UInt64) throws {
        print("find property seed: \(seed)")
        var random = SeededGenerator(seed: seed)
        let datastore = try TemporaryStore().datastore()
        for (name, fields) in Self.indexSets[Int(seed / 11 - 1) % Self.indexSets.count] {
            try datastore.ensureIndexed(fields: fields, name: name)
        }
        var bodies: [String: BodyValue] = [:]
        for round in 0..<6 {
            try edit(datastore, &bodies, &random)
            for _ in 0..<40 {
                let selector = RandomSelector.selector(&random, depth: 0)
                let expected = bodies.keys.sorted().filter { id in
                    Oracle.matches(selector, Oracle.withMeta(bodies[id]!, id: id))
                }
                let found = try datastore.find(selector).map { $0.docId! }
                if found != expected {
                    let smallest = try shrink(selector, datastore, bodies)
                    Issue.record("seed \(seed), round \(round): find(\(selector)) = \(found), expected \(expected); smallest failing part: \(smallest)")
                }
                guard try datastore.listIndexes().contains(where: { $0.fields.contains("a") }) else { continue }
                let descending = random.next() % 2 == 0
                let sorted = expected.sorted { x, y in
                    let (a, b) = (bodies[x]!["a"], bodies[y]!["a"])
                    let order = a == nil ? (b == nil ? 0 : -1) : b == nil ? 1 : Oracle.order(a!, b!)
                    return order == 0 ? x < y : (descending ? order > 0 : order < 0)
                }
                let page = try datastore.find(selector, skip: 1, limit: 4, sort: [SortField("a", descending: descending)])
                #expect(page.map { $0.docId! } == Array(sorted.dropFirst().prefix(4)), "seed \(seed), sorted \(selector)")
            }
        }
    }

    /// The smallest part of a failing selector that still fails on its own:
    /// the operands of `$and`, `$or`, `$nor` and `$not`, tried in turn.
    private func shrink(_ selector: BodyValue, _ datastore: Datastore, _ bodies: [String: BodyValue]) throws -> BodyValue {
        func fails(_ candidate: BodyValue) throws -> Bool {
            let expected = bodies.keys.sorted().filter { Oracle.matches(candidate, Oracle.withMeta(bodies[$0]!, id: $0)) }
            return try datastore.find(candidate).map { $0.docId! } != expected
        }
        let parts: [BodyValue]
        switch selector.mapValue?.first {
        case ("$and", .list(let operands))?, ("$or", .list(let operands))?, ("$nor", .list(let operands))?: parts = operands
        case ("$not", let operand)?: parts = [operand]
        default: parts = []
        }
        for part in parts where try fails(part) { return try shrink(part, datastore, bodies) }
        return selector
    }

    /// Creates, updates and deletes random documents, mirroring them in `bodies`.
    private func edit(_ datastore: Datastore, _ bodies: inout [String: BodyValue], _ random: inout SeededGenerator) throws {
        for _ in 0..<15 {
            let id = "doc\(random.next() % 30)"
            switch (bodies[id], random.next() % 4) {
            case (nil, _):
                let revision = DocumentRevision(docId: id)
                revision.body = RandomSelector.document(&random)
                if (try? datastore.getDocumentWithId(id)) != nil { continue }
                try datastore.createDocumentFromRevision(revision)
                bodies[id] = revision.body
            case (_?, 0):
                try datastore.deleteDocumentWithId(id)
                bodies[id] = nil
            default:
                let revision = try datastore.getDocumentWithId(id)
                revision.body = RandomSelector.document(&random)
                try datastore.updateDocumentFromRevision(revision)
                bodies[id] = revision.body
            }
        }
    }
}

/// Random documents and selectors over a small domain, so that matches are common.
enum RandomSelector {
    static let fields = ["a", "b", "c.d", "tags", "missing"]

    static func scalar(_ random: inout SeededGenerator) -> BodyValue {
        switch random.next() % 8 {
        case 0: return .null
        case 1: return .bool(random.next() % 2 == 0)
        case 2, 3: return .int(Int64(random.next() % 5) - 1)
        case 4: return .double([0.5, 1.0, 2.5, -1.5][Int(random.next() % 4)])
        default: return .string(["a", "b", "ab", "B", ""][Int(random.next() % 5)])
        }
    }

    static func value(_ random: inout SeededGenerator, depth: Int = 0) -> BodyValue {
        guard depth < 2 else { return scalar(&random) }
        switch random.next() % 6 {
        case 0: return .list((0..<Int(random.next() % 4)).map { _ in value(&random, depth: depth + 1) })
        case 1: return .map(["d": value(&random, depth: depth + 1)])
        default: return scalar(&random)
        }
    }

    static func document(_ random: inout SeededGenerator) -> BodyValue {
        var body: [ExactString: BodyValue] = [:]
        if random.next() % 5 != 0 { body["a"] = value(&random) }
        if random.next() % 3 != 0 { body["b"] = scalar(&random) }
        if random.next() % 2 == 0 { body["c"] = random.next() % 4 == 0 ? scalar(&random) : ["d": value(&random)] }
        if random.next() % 2 == 0 { body["tags"] = .list((0..<Int(random.next() % 4)).map { _ in scalar(&random) }) }
        return .map(body)
    }

    static func selector(_ random: inout SeededGenerator, depth: Int) -> BodyValue {
        switch depth < 2 ? random.next() % 8 : 7 {
        case 0: return ["$and": .list((0...random.next() % 2).map { _ in selector(&random, depth: depth + 1) })]
        case 1: return ["$or": .list((0...random.next() % 2).map { _ in selector(&random, depth: depth + 1) })]
        case 2: return ["$nor": [selector(&random, depth: depth + 1)]]
        case 3: return ["$not": selector(&random, depth: depth + 1)]
        default:
            let field = fields[Int(random.next() % UInt64(fields.count))]
            return .map([ExactString(field): condition(&random, depth: depth)])
        }
    }

    static func condition(_ random: inout SeededGenerator, depth: Int) -> BodyValue {
        let operand = random.next() % 6 == 0 ? value(&random) : scalar(&random)
        switch random.next() % 18 {
        case 0: return operand
        case 1: return ["$eq": operand]
        case 2: return ["$ne": operand]
        case 3: return ["$lt": operand]
        case 4: return ["$lte": operand]
        case 5: return ["$gt": operand]
        case 6: return ["$gte": operand]
        case 7: return ["$exists": .bool(random.next() % 2 == 0)]
        case 8: return ["$in": [scalar(&random), scalar(&random)]]
        case 9: return ["$nin": [scalar(&random), scalar(&random)]]
        case 10: return ["$size": .int(Int64(random.next() % 3))]
        case 11: return ["$mod": [2, .int(Int64(random.next() % 2))]]
        case 12: return ["$regex": .string(["^a", "b$", "(?i)b", "a|b", "^$"][Int(random.next() % 5)])]
        case 13: return ["$elemMatch": random.next() % 2 == 0 ? ["$gt": scalar(&random)] : ["d": scalar(&random)]]
        case 14: return ["$all": .list((0...random.next() % 1).map { _ in scalar(&random) })]
        case 15: return ["$not": ["$eq": operand]]
        case 16: return ["$gt": scalar(&random), "$lt": scalar(&random)]
        default: return ["d": scalar(&random)]
        }
    }
}
