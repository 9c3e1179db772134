import Foundation
import Testing

/// Locates the shared reference files (`../shared` next to the package root)
/// that hold real output of the Rust implementation.
///
/// Tests that need them use `.enabled(if: SharedFiles.available, SharedFiles.skipMessage)`
/// and are skipped, not failed, on a machine without them.
enum SharedFiles {
    /// The package root, derived from this file's path
    /// (`<root>/Tests/AutomergeTests/Support/SharedFiles.swift`).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // AutomergeTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root

    /// `<package root>/../shared`.
    static let root: URL = packageRoot.deletingLastPathComponent().appendingPathComponent("shared")

    /// Whether the shared directory exists.
    static var available: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    static let skipMessage: Comment = "../shared (Rust reference files) not found next to the package; skipped"

    /// Files in `../shared/<directory>` whose names end with `suffix`, sorted by name.
    static func files(in directory: String, suffix: String) -> [URL] {
        let dir = root.appendingPathComponent(directory)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(suffix) }.sorted().map { dir.appendingPathComponent($0) }
    }

    /// The bytes of a file.
    static func bytes(_ url: URL) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url))
    }
}
