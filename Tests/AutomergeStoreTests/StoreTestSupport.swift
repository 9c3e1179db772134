import Foundation
import Testing
@testable import AutomergeStore

/// A manager over a fresh temporary directory. The directory is not removed
/// when the value goes (Swift may release it before the datastores made from
/// it are done); each test process uses its own folder under the system's
/// temporary directory.
final class TemporaryStore: Sendable {
    let directory: URL
    let manager: DatastoreManager

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("automerge-store-tests-\(getpid())")
            .appendingPathComponent(UUID().uuidString)
        manager = try DatastoreManager(directory: directory.path)
    }

    func datastore(_ name: String = "my_datastore") throws -> Datastore { try manager.datastoreNamed(name) }

    /// A file holding `bytes`, for file attachments.
    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = directory.appendingPathComponent("input-\(name)")
        try Data(bytes).write(to: url)
        return url.path
    }
}

/// How many attachment blobs the datastore holds.
func blobCount(_ datastore: Datastore) throws -> Int {
    try FileManager.default.contentsOfDirectory(atPath: datastore.directory.appendingPathComponent("attachments").path).count
}

/// The error a call throws, as an `E` (nil when it throws nothing; an
/// issue when it throws something else).
func thrownError<E: Error>(as type: E.Type, _ body: () throws -> Void) -> E? {
    do {
        try body()
        return nil
    } catch let error as E {
        return error
    } catch {
        Issue.record("not a \(E.self): \(error)")
        return nil
    }
}

/// The error a call throws, as a `StoreError`.
func storeError(_ body: () throws -> Void) -> StoreError? { thrownError(as: StoreError.self, body) }
