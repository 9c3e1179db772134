import ArgumentParser
import AutomergeStore
import Foundation

/// `automerge-bench query`: Cloudant Query over a datastore of 100,000
/// documents, each query with and without an index, and what keeping the
/// indexes up to date adds to a write.
struct QueryBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query", abstract: "Queries over 100,000 documents, with and without indexes; index upkeep per write.",
        discussion: """
            Budgets: an indexed equality query returning 10 rows under 1 ms; index upkeep under 2x the write it follows.
            """)

    @Option(help: "Documents in the datastore.") var count = 100_000
    @Option(help: "Runs per query (queries that scan every document run at most 3 times).") var runs = 5
    @Option(help: "Writes for the upkeep measurement.") var writes = 1000

    /// One query of the benchmark.
    struct Query {
        let label: String
        let selector: BodyValue
        var sort: [SortField] = []
        var limit = 0
    }

    var queries: [Query] {
        [
            Query(label: "equality (10 rows)", selector: ["group": .int(Int64(count / 10 / 2))]),
            Query(label: "range, sorted, limit 20", selector: ["score": ["$gte": 500, "$lt": 600]],
                  sort: [SortField("score", descending: true)], limit: 20),
            Query(label: "$or of two equalities", selector: ["$or": [["group": 7], ["group": 8]]]),
            Query(label: "text search (one word, 20 rows)", selector: ["$text": .string("ref\(max(1, count / 20) / 2)")]),
        ]
    }

    func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("automerge-bench-query-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let datastore = try DatastoreManager(directory: directory.path).datastoreNamed("bench")
        print("query benchmarks over \(count) documents (release build expected; median of \(runs) runs)\n")
        try measure("create \(count) documents (batches of 1,000)", runs: 1) { try populate(datastore) }
        // Without an index a sort is refused (Cloudant's rule), so those queries run unsorted.
        for query in queries where !query.selector.isTextSearch {
            let unsorted = Query(label: query.label, selector: query.selector, limit: query.limit)
            let label = query.label + (query.sort.isEmpty ? "" : " (unsorted)") + ", no index"
            try measure(label, runs: min(runs, 3)) { try find(unsorted, in: datastore) }
        }
        try measure("build the indexes", runs: 1) {
            try datastore.ensureIndexed(fields: ["group"], name: "groups")
            try datastore.ensureIndexed(fields: ["score"], name: "scores")
            try datastore.ensureIndexed(fields: ["text"], name: "search", type: .text)
        }
        for query in queries {
            let label = "\(query.label), indexed"
            _ = try find(query, in: datastore)
            let figure = try median(runs: runs) { _ in try milliseconds { _ = try find(query, in: datastore) } }
            let budget = query.label.hasPrefix("equality") ? 1.0 : nil
            printFigure(label, figure, budget: budget)
        }
        try measureUpkeep(datastore)
    }

    private func find(_ query: Query, in datastore: Datastore) throws -> Int {
        try datastore.find(query.selector, limit: query.limit, sort: query.sort).count
    }

    /// Documents with a group shared by 10, a score spread over 0..<1000, and
    /// a sentence ending in a reference word shared by 20.
    private func populate(_ datastore: Datastore) throws {
        let words = ["apple", "river", "quantum", "stone", "violet", "engine", "harbor", "lantern", "meadow", "signal"]
        for start in stride(from: 0, to: count, by: 1000) {
            try datastore.createDocumentsFromRevisions((start..<min(start + 1000, count)).map { index in
                let revision = DocumentRevision(docId: String(format: "doc%07d", index))
                let sentence = (0..<6).map { words[(index * 7 + $0 * 3) % (words.count - ($0 == 0 ? 0 : 1))] }
                revision.body = ["group": .int(Int64(index / 10)), "score": .int(Int64(index * 7919 % 1000)),
                                 "text": .string(sentence.joined(separator: " ") + " ref\(index % max(1, count / 20))"),
                                 "done": .bool(index % 2 == 0)]
                return revision
            })
        }
    }

    /// A write (one field of one document) alone, and the same write followed by the index upkeep a `find` runs.
    private func measureUpkeep(_ datastore: Datastore) throws {
        func update(_ index: Int) throws {
            let revision = try datastore.getDocumentWithId(String(format: "doc%07d", index % count))
            revision.body["score"] = .int(Int64((index * 31) % 1000))
            try datastore.updateDocumentFromRevision(revision)
        }
        var writeTotal = 0.0, upkeepTotal = 0.0
        for index in 0..<writes {
            writeTotal += try milliseconds { try update(index) }
            upkeepTotal += try milliseconds { try datastore.updateAllIndexes() }
        }
        let (write, upkeep) = (writeTotal / Double(writes), upkeepTotal / Double(writes))
        print(String(format: "%-44@ %9.3f ms per write", "update one field (read + write)" as NSString, write))
        print(String(format: "%-44@ %9.3f ms per write   %.2fx the write (budget 2x): %@",
                     "index upkeep (3 indexes, one of them text)" as NSString, upkeep, upkeep / write,
                     upkeep <= 2 * write ? "met" : "MISSED"))
    }

    private func printFigure(_ label: String, _ median: Double, budget: Double?) {
        var line = String(format: "%-44@ median %9.3f ms", label as NSString, median)
        if let budget { line += String(format: "   budget %.0f ms ", budget) + verdict(median, budget: budget) }
        print(line)
    }
}

extension BodyValue {
    fileprivate var isTextSearch: Bool { self["$text"] != nil }
}
