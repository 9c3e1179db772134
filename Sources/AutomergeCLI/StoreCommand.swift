import ArgumentParser
import AutomergeCommandSupport
import AutomergeStore
import Foundation

/// `automerge store DIR NAME ACTION ...`: a datastore from the shell, JSON in
/// and out. DIR is a ``DatastoreManager``'s directory and NAME the
/// datastore; ACTION is one of ``StoreAction``'s cases, with its own
/// arguments after it.
///
/// The directory and name come before the action, so ArgumentParser's
/// subcommands (which must come first) cannot express it: the action's
/// arguments are captured and parsed by the action's own
/// `ParsableArguments` type, whose usage errors read as ArgumentParser's.
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store", abstract: "Read and write a datastore of Automerge documents.",
        discussion: """
            Actions (JSON in and out; errors are one line on standard error and a non-zero exit):
              create [--id ID] BODY_JSON         prints {"id","rev"}
              update ID REV BODY_JSON [--merge]  prints {"id","rev"}
              get ID [--rev REV]                 prints {"id","rev","deleted","body","attachments"}
              delete ID REV [--merge]            prints {"id","rev","deleted"}
              list [--offset N] [--limit N] [--descending]   one document per line, as get prints it
              attach ID REV FILE --name N --type T           prints {"id","rev"}
              history ID                         one revision per line, newest first: {"id","rev","deleted","sequence"}
              conflicts                          one conflicted document per line: {"id","rev"}
              index FIELD... --name N [--text]   creates a query index (nothing when it exists as given)
              find SELECTOR_JSON [--sort SORT_JSON] [--limit N] [--skip N] [--fields a,b]
                                                 one matching document per line, as get prints it
              import                             one body per line on standard input (with "_id" to name
                                                 or replace a document); prints {"id","rev"} per line once
                                                 it is durable
              replicate --stdio                  answers a replicator on standard input and output
              replicate-to-process CMD [--direction push|pull|both] [--doc-ids a,b]
                                                 replicates with CMD's standard input and output (such as
                                                 'automerge store DIR2 NAME2 replicate --stdio'); prints
                                                 {"documentsSent","documentsReceived","attachmentsSent",
                                                 "attachmentsReceived","bytesSent","bytesReceived"}
            BODY_JSON "-" reads the body from standard input.
            """)

    @Argument(help: "The datastore manager's directory (created if missing).") var directory: String
    @Argument(help: "The datastore's name (created if missing).") var name: String
    @Argument(help: "create, update, get, delete, list, attach, history, conflicts, import, index, find, replicate or replicate-to-process.")
    var action: String
    @Argument(parsing: .allUnrecognized, help: "The action's arguments.") var arguments: [String] = []

    func run() throws {
        guard let action = StoreAction(rawValue: action) else {
            throw CommandFailure("unknown action '\(action)': expected \(StoreAction.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let store = try DatastoreManager(directory: directory).datastoreNamed(name)
        var output = StoreOutput()
        try action.run(arguments, on: store, output: &output)
    }
}

/// What `automerge store` can do.
enum StoreAction: String, CaseIterable {
    case create, update, get, delete, list, attach, history, conflicts, `import`, index, find, replicate
    case replicateToProcess = "replicate-to-process"

    func run(_ arguments: [String], on store: Datastore, output: inout StoreOutput) throws {
        switch self {
        case .create: try parse(StoreCreate.self, arguments).run(store, &output)
        case .update: try parse(StoreUpdate.self, arguments).run(store, &output)
        case .get: try parse(StoreGet.self, arguments).run(store, &output)
        case .delete: try parse(StoreDelete.self, arguments).run(store, &output)
        case .list: try parse(StoreList.self, arguments).run(store, &output)
        case .attach: try parse(StoreAttach.self, arguments).run(store, &output)
        case .history: try parse(StoreHistory.self, arguments).run(store, &output)
        case .conflicts: try parse(StoreConflicts.self, arguments).run(store, &output)
        case .import: try parse(StoreImport.self, arguments).run(store, &output)
        case .index: try parse(StoreIndex.self, arguments).run(store, &output)
        case .find: try parse(StoreFind.self, arguments).run(store, &output)
        case .replicate: try parse(StoreReplicate.self, arguments).run(store, &output)
        case .replicateToProcess: try parse(StoreReplicateToProcess.self, arguments).run(store, &output)
        }
    }
}

/// An action's arguments, or a one-line failure naming what is wrong with them.
private func parse<Arguments: ParsableArguments>(_ type: Arguments.Type, _ arguments: [String]) throws -> Arguments {
    do {
        return try Arguments.parse(arguments)
    } catch {
        guard Arguments.exitCode(for: error) != .success else {
            print(Arguments.fullMessage(for: error))
            throw ExitCode.success
        }
        throw CommandFailure(Arguments.message(for: error))
    }
}

/// Writes the command's JSON lines to standard output, flushed line by
/// line (a script reading an `import`'s acknowledgements sees each as soon
/// as its write is durable).
struct StoreOutput {
    /// `{"id":...,"rev":...}`, with `deleted` when asked for.
    mutating func reference(_ revision: DocumentRevision, deleted: Bool = false, sequence: Bool = false) throws {
        var fields = [("id", json(revision.docId ?? "")), ("rev", json(revision.revId ?? ""))]
        if deleted { fields.append(("deleted", revision.deleted ? "true" : "false")) }
        if sequence { fields.append(("sequence", String(revision.sequence))) }
        line(fields)
    }

    /// The whole revision: id, rev, deleted, body and attachments' metadata.
    mutating func document(_ revision: DocumentRevision) throws {
        let attachments = revision.attachments.map { name, attachment -> String in
            var fields = [("type", json(attachment.type))]
            if let saved = attachment as? SavedAttachment {
                fields += [("length", String(saved.length)), ("digest", json(saved.digest))]
            }
            return json(name) + ":" + object(fields)
        }
        line([("id", json(revision.docId ?? "")), ("rev", json(revision.revId ?? "")),
              ("deleted", revision.deleted ? "true" : "false"),
              ("body", String(decoding: try BodyJSON.encode(revision.body), as: UTF8.self)),
              ("attachments", "{" + attachments.joined(separator: ",") + "}")])
    }

    /// One JSON object, its keys sorted.
    func line(_ value: [ExactString: BodyValue]) {
        let text = (try? BodyJSON.encode(.map(value))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    private func line(_ fields: [(String, String)]) {
        FileHandle.standardOutput.write(Data((object(fields) + "\n").utf8))
    }

    private func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { json($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    private func json(_ string: String) -> String {
        String(decoding: (try? BodyJSON.encode(.string(string))) ?? Data("\"\"".utf8), as: UTF8.self)
    }
}

/// The comma-separated items of an option (empty ones dropped), split at
/// the scalar `,`: `split(separator: ",")` compares characters, and a comma
/// followed by a combining mark is no comma to it.
func commaSeparated(_ text: String) -> [String] {
    text.unicodeScalars.split(separator: ",").map { String(String.UnicodeScalarView($0)) }
}

/// A body given on the command line: JSON text, or `-` for standard input.
func bodyArgument(_ text: String) throws -> BodyValue {
    let data = text == "-" ? FileHandle.standardInput.readDataToEndOfFile() : Data(text.utf8)
    return try BodyJSON.decode(data)
}
