import Foundation
import Testing
@testable import AutomergeStore

/// Each operator with the examples of Cloudant Sync's query guide and
/// Cloudant Query's documentation, run with and without indexes.
@Suite("Query: operators, as Cloudant documents them")
struct QueryOperatorTests {
    /// The guide's three people, plus movies for the array and text operators.
    static func datastore(indexed: Bool) throws -> Datastore {
        let datastore = try TemporaryStore().datastore()
        let documents: [(String, BodyValue)] = [
            ("mike12", ["name": "mike", "age": 12, "pet": ["species": "cat"]]),
            ("mike34", ["name": "mike", "age": 34, "pet": ["species": "dog"]]),
            ("fred23", ["name": "fred", "age": 23, "pet": ["species": "cat"]]),
            ("mike32", ["name": "mike", "age": 32, "pet": ["cat", "dog", "parrot"]]),
            ("movie1", ["title": "A New Hope", "year": 1977, "director": "George Lucas",
                        "genre": ["Action", "Sci-Fi"], "cast": ["Mark Hamill", "Harrison Ford"]]),
            ("movie2", ["title": "Jaws", "year": 1975, "director": "Steven Spielberg",
                        "genre": ["Horror", "Thriller"], "cast": ["Roy Scheider"]]),
            ("movie3", ["title": "Alien", "year": 2000, "director": "Ridley Scott",
                        "genre": ["Horror", "Sci-Fi"], "cast": ["Sigourney Weaver", "Ivan Kanev"]]),
        ]
        try datastore.createDocumentsFromRevisions(documents.map { id, body in
            let revision = DocumentRevision(docId: id)
            revision.body = body
            return revision
        })
        if indexed {
            try datastore.ensureIndexed(fields: ["name", "age", "pet.species"], name: "basic")
            try datastore.ensureIndexed(fields: ["age"], name: "ages")
            try datastore.ensureIndexed(fields: ["pet"], name: "pets")
            try datastore.ensureIndexed(fields: ["year", "title"], name: "years")
            try datastore.ensureIndexed(fields: ["genre"], name: "genres")
        }
        return datastore
    }

    static let cases: [(selector: BodyValue, ids: [String])] = [
        (["pet.species": "cat"], ["fred23", "mike12"]),
        (["pet": ["species": "cat"]], ["fred23", "mike12"]),
        (["age": ["$gt": 12]], ["fred23", "mike32", "mike34"]),
        (["name": "fred", "pet.species": "cat"], ["fred23"]),
        (["$or": [["pet.species": ["$eq": "dog"]], ["age": ["$lt": 30]]]], ["fred23", "mike12", "mike34"]),
        (["$or": [["pet.species": ["$eq": "dog"]], ["$and": [["age": ["$gt": 30]], ["name": ["$eq": "mike"]]]]]],
         ["mike32", "mike34"]),
        (["pet": ["$eq": "cat"]], ["mike32"]),
        (["pet": ["$not": ["$eq": "cat"]], "name": "mike"], ["mike12", "mike34"]),
        (["age": ["$gte": 23, "$lte": 32]], ["fred23", "mike32"]),
        (["age": ["$ne": 12], "name": ["$exists": true]], ["fred23", "mike32", "mike34"]),
        (["pet.species": ["$exists": false], "name": ["$exists": true]], ["mike32"]),
        (["age": ["$in": [12, 23]]], ["fred23", "mike12"]),
        (["age": ["$nin": [12, 23]], "name": ["$exists": true]], ["mike32", "mike34"]),
        (["$nor": [["name": "mike"], ["year": ["$exists": true]]]], ["fred23"]),
        (["$not": ["name": "mike"], "age": ["$exists": true]], ["fred23"]),
        (["year": ["$gt": 1976]], ["movie1", "movie3"]),
        (["year": ["$mod": [100, 0]]], ["movie3"]),
        (["genre": ["$elemMatch": ["$eq": "Horror"]]], ["movie2", "movie3"]),
        (["genre": ["$size": 2], "year": ["$lt": 2000]], ["movie1", "movie2"]),
        (["cast": ["$all": ["Ivan Kanev", "Sigourney Weaver"]]], ["movie3"]),
        (["title": ["$regex": "^A"]], ["movie1", "movie3"]),
        (["$or": [["director": "George Lucas"], ["director": "Steven Spielberg"]]], ["movie1", "movie2"]),
        (["genre": "Sci-Fi", "year": ["$gte": 1977]], ["movie1", "movie3"]),
        // CouchDB collation across types: every string sorts after every number.
        (["age": ["$lt": "a"]], ["fred23", "mike12", "mike32", "mike34"]),
        (["_id": ["$in": ["fred23", "nobody"]]], ["fred23"]),
        ([:], ["fred23", "mike12", "mike32", "mike34", "movie1", "movie2", "movie3"]),
    ]

    @Test("each documented example returns its documents", arguments: [false, true])
    func examples(indexed: Bool) throws {
        let datastore = try Self.datastore(indexed: indexed)
        for (selector, ids) in Self.cases {
            #expect(try datastore.find(selector).map { $0.docId! } == ids, "\(selector)")
        }
    }

    @Test("selectors as JSON text read as their Swift literals do")
    func jsonSelectors() throws {
        let datastore = try Self.datastore(indexed: true)
        #expect(try datastore.find(json: #"{"age": {"$gt": 12}, "pet.species": "cat"}"#).map { $0.docId! } == ["fred23"])
        #expect(throws: QueryError.invalidSelector(path: "", reason: "not JSON: unexpected end at byte 8")) {
            try datastore.find(json: #"{"age": "#)
        }
    }

    @Test("indexed queries use their index; negations and uncovered fields scan")
    func explain() throws {
        let datastore = try Self.datastore(indexed: true)
        #expect(try datastore.explain(["name": "mike"]).indexes == ["basic"])
        #expect(try datastore.explain(["age": ["$gt": 12], "name": "mike"]).indexes == ["ages", "basic"])
        #expect(try datastore.explain(["name": ["$ne": "mike"]]).scansEveryDocument)
        #expect(try datastore.explain(["director": "Ridley Scott"]).scansEveryDocument)
        #expect(try datastore.explain(["$or": [["name": "mike"], ["director": "x"]]]).scansEveryDocument)
    }

    @Test("sort on indexed fields, ascending and descending, with skip, limit and projection")
    func sortSkipLimitFields() throws {
        let datastore = try Self.datastore(indexed: true)
        let people: BodyValue = ["name": ["$exists": true]]
        let byAge = try datastore.find(people, sort: [SortField("age")]).map { $0.docId! }
        #expect(byAge == ["mike12", "fred23", "mike32", "mike34"])
        let sorted = try datastore.find(people, sort: SortField.parse([["name": "asc"], ["age": "desc"]])).map { $0.docId! }
        #expect(sorted == ["fred23", "mike34", "mike32", "mike12"])
        let page = try datastore.find(people, skip: 1, limit: 2, fields: ["name"], sort: [SortField("age", descending: true)])
        #expect(page.map { $0.docId! } == ["mike32", "fred23"])
        #expect(page.map(\.body) == [["name": "mike"], ["name": "fred"]])
        #expect(throws: QueryError.invalidSort("no JSON index holds all of director")) {
            try datastore.find(people, sort: [SortField("director")])
        }
        #expect(throws: QueryError.invalidSort("each entry is one field with \"asc\" or \"desc\", not [\"age\": \"up\"]")) {
            try SortField.parse([["age": "up"]])
        }
    }

    @Test("a text index answers $text, alone and beside other clauses")
    func textSearch() throws {
        let datastore = try Self.datastore(indexed: false)
        #expect(throws: QueryError.noTextIndex) { try datastore.find(["$text": "hope"]) }
        try datastore.ensureIndexed(fields: ["title", "cast"], name: "search", type: .text)
        #expect(try datastore.find(["$text": "hope"]).map { $0.docId! } == ["movie1"])
        #expect(try datastore.find(["$text": "harrison OR weaver"]).map { $0.docId! } == ["movie1", "movie3"])
        #expect(try datastore.find(["$text": "weaver", "year": ["$lt": 1990]]).isEmpty)
        let updated = try datastore.getDocumentWithId("movie2")
        updated.body["title"] = "Jaws: A Hope"
        try datastore.updateDocumentFromRevision(updated)
        #expect(try datastore.find(["$text": "hope"]).map { $0.docId! } == ["movie1", "movie2"], "updates reach the text index")
        try datastore.deleteDocumentWithId("movie1")
        #expect(try datastore.find(["$text": "hope"]).map { $0.docId! } == ["movie2"], "deletes leave it")
        #expect(throws: QueryError.invalidIndex("a datastore has one text index, and has 'search'")) {
            try datastore.ensureIndexed(fields: ["director"], name: "other", type: .text)
        }
        if case .invalidSelector(path: "$text", _)? = queryError({ _ = try datastore.find(["$text": "\"unbalanced"]) }) {
        } else {
            Issue.record("a malformed text search is not a typed error")
        }
    }

    @Test("indexes: ensureIndexed is idempotent, clashes are typed errors, list and delete work")
    func indexManagement() throws {
        let datastore = try Self.datastore(indexed: false)
        #expect(try datastore.ensureIndexed(fields: ["name"], name: "names") == "names")
        #expect(try datastore.ensureIndexed(fields: ["name"], name: "names") == "names")
        #expect(throws: QueryError.invalidIndex("'names' exists with another definition")) {
            try datastore.ensureIndexed(fields: ["age"], name: "names")
        }
        #expect(throws: QueryError.invalidIndex("index names match ^[a-zA-Z]+[a-zA-Z0-9_]*$, not 'bad name'")) {
            try datastore.ensureIndexed(fields: ["age"], name: "bad name")
        }
        #expect(throws: QueryError.invalidIndex("an index needs one or more distinct fields")) {
            try datastore.ensureIndexed(fields: [], name: "empty")
        }
        #expect(try datastore.listIndexes() == [IndexDefinition(name: "names", type: .json, fields: ["name"])])
        try datastore.deleteIndexNamed("names")
        #expect(try datastore.listIndexes().isEmpty)
        #expect(throws: QueryError.indexNotFound("names")) { try datastore.deleteIndexNamed("names") }
        #expect(try datastore.find(["name": "fred"]).map { $0.docId! } == ["fred23"])
    }

    @Test("wide selectors (thousands of $in values, $or branches, ids) answer correctly, by index or by scan")
    func wideSelectors() throws {
        let datastore = try Self.datastore(indexed: true)
        let ages = (0..<5000).map { BodyValue.int(Int64($0)) } + ["x", nil, true]
        #expect(try datastore.find(["age": ["$in": .list(ages)]]).map { $0.docId! } == ["fred23", "mike12", "mike32", "mike34"])
        #expect(try datastore.find(["age": ["$in": [12, "x", nil, 23.0]]]).map { $0.docId! } == ["fred23", "mike12"])
        let branches = (0..<2000).map { BodyValue.map(["age": .int(Int64($0))]) }
        #expect(try datastore.find(["$or": .list(branches)]).map { $0.docId! } == ["fred23", "mike12", "mike32", "mike34"])
        let ids = (0..<3000).map { BodyValue.string("id\($0)") } + ["movie2"]
        #expect(try datastore.find(["_id": ["$in": .list(ids)]]).map { $0.docId! } == ["movie2"])
    }

    @Test("bad selectors are typed errors naming the offending path")
    func badSelectors() throws {
        let datastore = try Self.datastore(indexed: false)
        let cases: [(BodyValue, QueryError)] = [
            (["age": ["$bigger": 3]], .invalidSelector(path: "age.$bigger", reason: "unknown operator '$bigger'")),
            (["$or": [["a": 1], ["b": ["$in": 3]]]], .invalidSelector(path: "$or[1].b.$in", reason: "$in takes an array")),
            (["$and": []], .invalidSelector(path: "$and", reason: "$and takes a non-empty array of selectors")),
            (["a": ["$exists": "yes"]], .invalidSelector(path: "a.$exists", reason: "$exists takes true or false")),
            (["a": ["$mod": [0, 1]]], .invalidSelector(path: "a.$mod", reason: "$mod's divisor is 0")),
            (["a": ["$size": -1]], .invalidSelector(path: "a.$size", reason: "$size takes a non-negative integer")),
            (["a": ["$gt": 1, "b": 2]], .invalidSelector(path: "a", reason: "mixes operators and field names")),
            (["$where": "1"], .invalidSelector(path: "$where", reason: "unknown operator '$where'")),
            (["a..b": 1], .invalidField("a..b", reason: "a field name or a dotted component is empty")),
            ([1, 2], .invalidSelector(path: "", reason: "a selector is a map")),
        ]
        for (selector, error) in cases {
            #expect(throws: error, "\(selector)") { try datastore.find(selector) }
        }
        if case .invalidSelector(path: "a.$regex", _)? = queryError({ _ = try datastore.find(["a": ["$regex": "(a)\\1"]]) }) {
        } else {
            Issue.record("a backreference is not refused")
        }
        var deep: BodyValue = ["a": 1]
        for _ in 0..<200 { deep = ["$not": deep] }
        if case .invalidSelector? = queryError({ _ = try datastore.find(deep) }) {} else {
            Issue.record("a selector nested 200 deep is not refused")
        }
        #expect(throws: QueryError.invalidField("pet.species", reason: "projected fields are top-level names, without dots")) {
            try datastore.find([:], fields: ["pet.species"])
        }
    }
}

/// The error a call throws, as a `QueryError`.
func queryError(_ body: () throws -> Void) -> QueryError? { thrownError(as: QueryError.self, body) }
