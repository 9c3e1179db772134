import Foundation
import Testing
@testable import AutomergeStore

/// Replicates `local` with `remote` over an in-process transport (the
/// remote end served by `remote.serveReplication`), returning both sides' summaries.
@discardableResult
func replicate(_ local: Datastore, with remote: Datastore, direction: Replicator.Direction = .both,
               pushFilter: (@Sendable (DocumentRevision) -> Bool)? = nil, pullDocumentIds: [String]? = nil)
    async throws -> (local: ReplicationSummary, remote: ReplicationSummary)
{
    let (near, far) = InProcessTransport.pair()
    async let served = remote.serveReplication(over: far, timeout: 60)
    let replicator = Replicator(datastore: local, transport: near, direction: direction, pushFilter: pushFilter,
                                pullDocumentIds: pullDocumentIds, timeout: 60)
    let summary = try await replicator.run()
    return (summary, try await served)
}

/// What replicas must agree on for every document: its current revision,
/// whether it is deleted, its body, and its attachments' names, types and
/// bytes. Ids and names are told apart by their scalars, as the store does.
struct ReplicaSnapshot: Equatable, CustomStringConvertible {
    struct Entry: Equatable {
        var revId: String
        var deleted: Bool
        var body: BodyValue
        var attachments: [ExactString: String]
    }

    var documents: [ExactString: Entry] = [:]

    init(_ datastore: Datastore) throws {
        var docIds = Set<ExactString>()
        var since: Int64 = 0
        while true {
            let page = try datastore.changes(since: since, limit: 1000)
            guard !page.results.isEmpty else { break }
            page.results.forEach { docIds.insert(ExactString($0.docId)) }
            since = page.lastSequence
        }
        for docId in docIds {
            let revision = try datastore.getDocumentWithId(docId.string)
            var attachments: [ExactString: String] = [:]
            for (name, attachment) in revision.attachments {
                let bytes = (try? attachment.dataFromAttachmentContent()).map { "\($0.count) bytes \(BlobStoreDigest.of($0))" }
                attachments[ExactString(name)] = "\(attachment.type): \(bytes ?? "UNREADABLE")"
            }
            documents[docId] = Entry(revId: revision.revId!, deleted: revision.deleted, body: revision.body,
                                     attachments: attachments)
        }
    }

    var description: String {
        documents.keys.sorted().map { "\($0): \(documents[$0]!)" }.joined(separator: "\n")
    }
}

enum BlobStoreDigest {
    static func of(_ data: Data) -> String { String(BlobStore.digest(of: data).prefix(20)) }
}

func body(_ revision: DocumentRevision) -> [ExactString: BodyValue] { revision.body.mapValue ?? [:] }

/// Creates documents `doc0`... with bodies `{"index": i}`, in one batch.
func createNumbered(_ count: Int, in datastore: Datastore) throws {
    try datastore.createDocumentsFromRevisions((0..<count).map { index in
        let rev = DocumentRevision(docId: "doc\(index)")
        rev.body = ["index": .int(Int64(index))]
        return rev
    })
}
