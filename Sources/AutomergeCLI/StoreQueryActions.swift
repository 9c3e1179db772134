import ArgumentParser
import AutomergeStore
import Foundation

/// `index FIELD... --name N [--text]`
struct StoreIndex: ParsableArguments {
    @Argument(help: "The fields, in dotted notation.") var fields: [String]
    @Option(help: "The index's name.") var name: String
    @Flag(help: "A full-text index (one per datastore).") var text = false

    func run(_ store: Datastore, _ output: inout StoreOutput) throws {
        let name = try store.ensureIndexed(fields: fields, name: name, type: text ? .text : .json)
        output.line(["name": .string(name)])
    }
}

/// `find SELECTOR_JSON [--sort SORT_JSON] [--limit N] [--skip N] [--fields a,b]`
struct StoreFind: ParsableArguments {
    @Argument(help: "A Cloudant Query selector (- for standard input).") var selector: String
    @Option(help: #"Sort document, such as [{"age":"desc"}]."#) var sort: String?
    @Option(help: "Most documents to print (0: all).") var limit = 0
    @Option(help: "Matches to skip.") var skip = 0
    @Option(help: "Top-level fields to print, comma-separated.") var fields: String?

    func run(_ store: Datastore, _ output: inout StoreOutput) throws {
        let results = try store.find(try bodyArgument(selector), skip: skip, limit: limit,
                                     fields: fields.map(commaSeparated),
                                     sort: try sort.map(Self.sortFields) ?? [])
        for revision in results { try output.document(revision) }
    }

    /// `[{"field":"asc"}, ...]` (a bare field name sorts ascending).
    static func sortFields(_ json: String) throws -> [SortField] {
        guard case .list(let entries) = try BodyJSON.decode(Data(json.utf8)) else {
            throw QueryError.invalidSort("a sort is a JSON array, such as [{\"age\":\"desc\"}]")
        }
        return try entries.map { entry in
            if case .string(let field) = entry { return SortField(field) }
            guard case .map(let map) = entry, map.count == 1, case .string(let direction)? = map.first?.value else {
                throw QueryError.invalidSort("each entry is a field name or {\"field\": \"asc\" or \"desc\"}")
            }
            return try SortField.parse([[map.first!.key.string: direction]])[0]
        }
    }
}
