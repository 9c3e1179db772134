import Foundation
import PropertyBased
import Testing
import AutomergeTestSupport
@testable import AutomergeStore

/// A random history of 2-4 datastores: edits (create, update, update merged
/// from an old revision, delete, attachments) and replications between
/// random pairs, some over a transport that drops, repeats, reorders or
/// cuts a frame, some while a side edits, some followed by the side's
/// restart (a new instance over its files, as after a kill).
struct ReplicationScenario: CustomStringConvertible, Sendable {
    enum Step: Sendable, CustomStringConvertible {
        /// `kind`: 0 create, 1 update, 2 update merged from the first revision, 3 delete, 4 attach, 5 detach.
        case edit(store: Int, kind: Int, doc: Int, value: Int)
        case replicate(from: Int, to: Int, direction: Int, fault: FaultyTransport.Fault, at: Int, editMeanwhile: Int?,
                       restart: Bool)

        var description: String {
            switch self {
            case .edit(let store, let kind, let doc, let value): return "edit(s\(store) kind \(kind) doc\(doc) v\(value))"
            case .replicate(let from, let to, let direction, let fault, let at, let edit, let restart):
                return "replicate(s\(from)->s\(to) dir \(direction) \(fault)@\(at) edit \(edit.map(String.init) ?? "-") restart \(restart))"
            }
        }
    }

    var stores: Int
    var steps: [Step]

    var description: String { "\(stores) stores: " + steps.map(\.description).joined(separator: ", ") }

    static func generator() -> Generator<ReplicationScenario, some SendableSequenceType> {
        let step = zip(Gen.int(in: 0...9), Gen.int(in: 0...3), Gen.int(in: 0...3), Gen.int(in: 0...5), Gen.int(in: 0...40))
            .map { choice, first, second, kind, value -> Step in
                guard choice >= 6 else { return .edit(store: first, kind: kind, doc: value % 6, value: value) }
                return .replicate(from: first, to: second, direction: value % 3, fault: .init(rawValue: kind % 5)!,
                                  at: value % 24, editMeanwhile: choice == 8 ? value : nil, restart: choice == 9)
            }
        return zip(Gen.int(in: 2...4), step.array(of: 1...24)).map { ReplicationScenario(stores: $0.0, steps: $0.1) }
    }
}

/// Runs a scenario on real datastores and checks what must hold after the
/// final clean replications.
final class ReplicationWorld: @unchecked Sendable {
    let directory: URL
    var stores: [Datastore]
    /// Per document, every key an acknowledged write put in its body.
    var writtenKeys: [String: Set<String>] = [:]
    var deleted = Set<String>()
    var counter = 0
    let lock = NSLock()

    init(stores count: Int) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("replication-\(getpid())")
            .appendingPathComponent(UUID().uuidString)
        self.directory = directory
        stores = try (0..<count).map { try DatastoreManager(directory: directory.path).datastoreNamed("s\($0)") }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A new instance over the store's files, as a restarted process opens it.
    func restart(_ index: Int) throws {
        stores[index] = try DatastoreManager(directory: directory.path).datastoreNamed("s\(index)")
    }

    func edit(store index: Int, kind: Int, doc: Int, value: Int) {
        let store = stores[index % stores.count], docId = "doc\(doc)"
        let key = lock.withLock { () -> String in
            counter += 1
            return "k\(counter)"
        }
        let attachment = UnsavedDataAttachment(data: Data("attachment \(value % 4)".utf8), name: "a\(value % 2)",
                                               type: "text/plain")
        do {
            guard let current = try? store.getDocumentWithId(docId) else {
                let rev = DocumentRevision(docId: docId)
                rev.body = [ExactString(key): .int(Int64(value))]
                if value % 3 == 0 { rev.attachments[attachment.name] = attachment }
                try store.createDocumentFromRevision(rev)
                return noteWrite(docId, key)
            }
            guard !current.deleted else { return }
            switch kind {
            case 3:
                try store.deleteDocumentFromRevision(current)
                lock.withLock { _ = deleted.insert(docId) }
                return
            case 2:
                let first = try store.getRevisionHistory(current).last!
                first.body[key] = .int(Int64(value))
                try store.updateDocumentFromRevision(first, options: .merge)
            case 4:
                current.body[key] = .int(Int64(value))
                current.attachments[attachment.name] = attachment
                try store.updateDocumentFromRevision(current)
            case 5:
                current.body[key] = .int(Int64(value))
                current.attachments = [:]
                try store.updateDocumentFromRevision(current)
            default:
                current.body[key] = .int(Int64(value))
                try store.updateDocumentFromRevision(current)
            }
            noteWrite(docId, key)
        } catch StoreError.conflict, StoreError.documentDeleted {
            // A replication wrote the document meanwhile: the write was refused, not acknowledged.
        } catch {
            print("replication property test: an edit failed: \(error)")
            Issue.record("edit failed: \(error)")
        }
    }

    private func noteWrite(_ docId: String, _ key: String) {
        _ = lock.withLock { writtenKeys[docId, default: []].insert(key) }
    }

    /// Replicates two stores, maybe over a faulty transport; a failure is allowed when there is a fault.
    func replicate(_ from: Int, _ to: Int, direction: Int, fault: FaultyTransport.Fault, at: Int,
                   meanwhile: (@Sendable () -> Void)? = nil) async throws
    {
        let local = stores[from % stores.count], remote = stores[to % stores.count]
        guard local !== remote else { return }
        let (near, far) = InProcessTransport.pair()
        let faultyNear = FaultyTransport(near, fault: at % 2 == 0 ? fault : .none, at: at / 2)
        let faultyFar = FaultyTransport(far, fault: at % 2 == 1 ? fault : .none, at: at / 2)
        // A short timeout finds a dropped last frame quickly; a run without
        // a fault gets a long one, so that a loaded machine does not fail it.
        let timeout = fault == .none ? 30 : 0.5
        let served = Task { try await remote.serveReplication(over: faultyFar, timeout: timeout) }
        let replicator = Replicator(datastore: local, transport: faultyNear,
                                    direction: [.push, .pull, .both][direction], timeout: timeout)
        let editing = meanwhile.map { edit in Task.detached { edit() } }
        do {
            try await replicator.run()
            _ = try await served.value
        } catch let error as ReplicationError {
            _ = try? await served.value
            if fault == .none {
                print("replication property test: a replication without fault failed: \(error)")
                Issue.record("a replication without fault failed: \(error)")
            }
        }
        await editing?.value
    }

    /// Replicates every pair both ways, cleanly, until all hold everything.
    func converge() async throws {
        for index in 0..<stores.count - 1 { try await replicate(index, index + 1, direction: 2, fault: .none, at: 0) }
        for index in (0..<stores.count - 1).reversed() { try await replicate(index, index + 1, direction: 2, fault: .none, at: 0) }
    }

    func checkConverged(_ context: String) throws {
        let snapshots = try stores.map(ReplicaSnapshot.init)
        for (index, snapshot) in snapshots.enumerated().dropFirst() {
            #expect(snapshot == snapshots[0], "store s\(index) differs from s0 after convergence: \(context)\ns0:\n\(snapshots[0])\ns\(index):\n\(snapshot)")
        }
        for (docId, keys) in writtenKeys {
            guard let entry = snapshots[0].documents[ExactString(docId)] else {
                Issue.record("document \(docId), acknowledged on a replica, is lost: \(context)")
                continue
            }
            if !entry.deleted {
                let body = entry.body.mapValue ?? [:]
                #expect(keys.allSatisfy { body[ExactString($0)] != nil }, "document \(docId) lost acknowledged writes: \(context)")
            }
            #expect(!entry.attachments.values.contains { $0.hasSuffix("UNREADABLE") }, "an attachment of \(docId) is unreadable: \(context)")
        }
    }
}

// The limit counts from when the case has its thread, not from when it
// started waiting for one behind the other long suites.
@Suite("Replication: convergence under faults", .ownThread(timeLimit: .seconds(600)))
struct ReplicationPropertyTests {
    @Test("2-4 datastores with random edits, replicating in random pairs over faulty transports, converge")
    func converge() async {
        await propertyCheck(count: 40, input: ReplicationScenario.generator()) { scenario in
            do {
                let world = try ReplicationWorld(stores: scenario.stores)
                for step in scenario.steps {
                    switch step {
                    case .edit(let store, let kind, let doc, let value):
                        world.edit(store: store, kind: kind, doc: doc, value: value)
                    case .replicate(let from, let to, let direction, let fault, let at, let edit, let restart):
                        let meanwhile = edit.map { value in { @Sendable in world.edit(store: value % 2 == 0 ? from : to, kind: value % 6, doc: value % 6, value: value) } }
                        try await world.replicate(from, to, direction: direction, fault: fault, at: at, meanwhile: meanwhile)
                        if restart { try world.restart(to % scenario.stores) }
                    }
                }
                try await world.converge()
                try world.checkConverged("\(scenario)")
            } catch {
                Issue.record("\(scenario): \(error)")
            }
        }
    }
}

/// Scenarios the property test found, kept as fixed cases.
@Suite("Replication: scenarios once found failing")
struct ReplicationRegressionTests {
    /// s0 and s1 create one document, each with an attachment `a0` of
    /// different bytes; s3 deletes s0's. Merged, the document names s1's
    /// bytes; before the merge reached s3, the replicas between named s0's
    /// (which of two concurrent values wins depends on the random actors,
    /// so the case runs 16 times) and fetched only those, so s3 named bytes
    /// no peer offered it. Found by the property test's seed
    /// lWF2bu2PveZefTUZLat/L7FH64KvMIbFnOuHqbtPw64=.
    @Test("bytes of an attachment a conflict hides reach every replica, for the merge that brings it back")
    func hiddenAttachmentReachesEveryReplica() async throws {
        for _ in 0..<16 {
            let world = try ReplicationWorld(stores: 4)
            world.edit(store: 0, kind: 0, doc: 0, value: 0)
            try await world.replicate(0, 3, direction: 0, fault: .none, at: 0)
            world.edit(store: 3, kind: 3, doc: 0, value: 0)
            world.edit(store: 1, kind: 2, doc: 0, value: 30)
            try await world.converge()
            try world.checkConverged("created on s0 and s1, pushed to s3, deleted on s3")
        }
    }
}
