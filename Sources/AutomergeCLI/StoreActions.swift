import ArgumentParser
import AutomergeCommandSupport
import AutomergeConformance
import AutomergeStore
import Foundation

/// `create [--id ID] BODY_JSON`
struct StoreCreate: ParsableArguments {
    @Option(help: "The document id (generated when absent).") var id: String?
    @Argument(help: "The body, a JSON object (- for standard input).") var body: String

    func run(_ store: Datastore, _ output: inout StoreOutput) throws {
        let revision = DocumentRevision(docId: id)
        revision.body = try bodyArgument(body)
        try output.reference(try store.createDocumentFromRevision(revision))
    }
}

/// `update ID REV BODY_JSON [--merge]`: replaces the body, keeping the attachments.
struct StoreUpdate: ParsableArguments {
    @Argument(help: "The document id.") var id: String
    @Argument(help: "The revision the new body replaces.") var rev: String
    @Argument(help: "The new body, a JSON object (- for standard input).") var body: String
    @Flag(help: "Merge into the current revision when REV is an older one.") var merge = false

    func run(_ store: Datastore, _ output: inout StoreOutput) throws {
        let body = try bodyArgument(body)
        let revision = try store.getDocumentWithId(id, revId: rev)
        revision.body = body
        try output.reference(try store.updateDocumentFromRevision(revision, options: merge ? .merge : []))
    }
}

/// `get ID [--rev REV]`
struct StoreGet: ParsableArguments {
    @Argument(help: "The document id.") var id: String
    @Option(help: "A revision other than the current one.") var rev: String?

    func run(_ store: Datastore, _ output: inout StoreOutput) throws {
        try output.document(try rev.map { try store.getDocumentWithId(id, revId: $0) } ?? store.getDocumentWithId(id))
    }
}

/// `delete ID REV [--merge]`
struct StoreDelete: ParsableArguments {
    @Argument(help: "The document id.") var id: String
    @Argument(help: "Its current revision.") var rev: String
    @Flag(help: "Delete even when REV is an older revision.") var merge = false

    func run(_ store: Datastore, _ output: inout StoreOutput) throws {
        let revision = try store.getDocumentWithId(id, revId: rev)
        try output.reference(try store.deleteDocumentFromRevision(revision, options: merge ? .merge : []), deleted: true)
    }
}

/// `list [--offset N] [--limit N] [--descending]`
struct StoreList: ParsableArguments {
    @Option(help: "Documents to skip.") var offset = 0
    @Option(help: "Most documents to print.") var limit = Int.max
    @Flag(help: "By id, descending.") var descending = false
    /// Documents read per transaction, so that memory stays bounded on big stores.
    private static let page = 500

    func run(_ store: Datastore, _ output: inout StoreOutput) throws {
        var printed = 0
        while printed < limit {
            let count = min(Self.page, limit - printed)
            let revisions = try store.getAllDocuments(offset: offset + printed, limit: count, descending: descending)
            for revision in revisions { try output.document(revision) }
            printed += revisions.count
            if revisions.count < count { break }
        }
    }
}

/// `attach ID REV FILE --name N --type T`: adds or replaces one attachment.
struct StoreAttach: ParsableArguments {
    @Argument(help: "The document id.") var id: String
    @Argument(help: "Its current revision.") var rev: String
    @Argument(help: "The file to attach.") var file: String
    @Option(help: "The attachment's name (default: the file's name).") var name: String?
    @Option(help: "Its MIME type.") var type = "application/octet-stream"

    func run(_ store: Datastore, _ output: inout StoreOutput) throws {
        let data = try FileAccess.read(file)
        let revision = try store.getDocumentWithId(id, revId: rev)
        let name = name ?? URL(fileURLWithPath: file).lastPathComponent
        revision.attachments[name] = UnsavedDataAttachment(data: data, name: name, type: type)
        try output.reference(try store.updateDocumentFromRevision(revision))
    }
}

/// `history ID`: the current revision's history, newest first.
struct StoreHistory: ParsableArguments {
    @Argument(help: "The document id.") var id: String

    func run(_ store: Datastore, _ output: inout StoreOutput) throws {
        for revision in try store.getRevisionHistory(try store.getDocumentWithId(id)) {
            try output.reference(revision, deleted: true, sequence: true)
        }
    }
}

/// `conflicts`: the documents with conflicted fields.
struct StoreConflicts: ParsableArguments {
    func run(_ store: Datastore, _ output: inout StoreOutput) throws {
        for id in try store.getConflictedDocumentIds() { try output.reference(try store.getDocumentWithId(id)) }
    }
}

/// `import`: one JSON body per line on standard input. A line with `"_id"`
/// creates that document or, when it exists, replaces its body (keeping its
/// attachments); one without creates a document with a generated id. Each
/// line is one transaction, acknowledged with `{"id","rev"}` once durable;
/// the first line that fails stops the import with its error.
struct StoreImport: ParsableArguments {
    func run(_ store: Datastore, _ output: inout StoreOutput) throws {
        var number = 0
        while let line = readLine() {
            number += 1
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            do {
                try output.reference(try importLine(line, into: store))
            } catch {
                throw CommandFailure("line \(number): \(error)")
            }
        }
    }

    private func importLine(_ line: String, into store: Datastore) throws -> DocumentRevision {
        guard case .map(var body) = try BodyJSON.decode(Data(line.utf8)) else {
            throw StoreError.invalidBody("a body is a JSON object")
        }
        let id = try body.removeValue(forKey: "_id").map { value -> String in
            guard let id = value.stringValue else { throw StoreError.invalidBody("\"_id\" is not a string") }
            return id
        }
        if let id, let current = try existing(id, in: store), !current.deleted {
            current.body = .map(body)
            return try store.updateDocumentFromRevision(current)
        }
        let revision = DocumentRevision(docId: id)
        revision.body = .map(body)
        return try store.createDocumentFromRevision(revision)
    }

    private func existing(_ id: String, in store: Datastore) throws -> DocumentRevision? {
        do {
            return try store.getDocumentWithId(id)
        } catch StoreError.documentNotFound {
            return nil
        }
    }
}
