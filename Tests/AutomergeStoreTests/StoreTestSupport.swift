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

/// `count` letters that deflate does not shrink much (a document's
/// snapshot stays large beside its small changes; a log fills with pages),
/// the same for the same `seed`.
func incompressibleText(_ count: Int, seed: UInt64 = 0) -> String {
    var state = seed &+ 0x9E37_79B9_7F4A_7C15
    return String((0..<count).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Character(Unicode.Scalar(UInt8(97 + (state >> 33) % 26)))
    })
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
