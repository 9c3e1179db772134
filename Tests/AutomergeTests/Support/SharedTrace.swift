import Foundation
import Testing

/// The editing traces in the shared reference files (`../shared/traces` next
/// to the package root). Tests that need them are skipped, not failed, when
/// the directory is absent.
enum SharedTrace {
    /// The package root, derived from this file's path
    /// (`<root>/Tests/AutomergeTests/Support/SharedTrace.swift`).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // AutomergeTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root

    /// `<package root>/../shared/traces`.
    static let directory: URL = packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared").appendingPathComponent("traces")

    /// The automerge-paper trace: every keystroke of writing the Automerge paper.
    static let paperEdits: URL = directory.appendingPathComponent("automerge-paper-edits.json")

    static var paperEditsAvailable: Bool { FileManager.default.fileExists(atPath: paperEdits.path) }

    static let skipMessage: Comment = "../shared/traces/automerge-paper-edits.json not found next to the package; skipped"

    /// One edit: delete `delete` characters at `position`, then insert `insert` there.
    struct Edit: Equatable {
        var position: Int
        var delete: Int
        var insert: String
    }

    enum FormatError: Error { case unexpected(String) }

    /// Reads a trace stored as a JSON array of `[position, deleteCount]` or
    /// `[position, deleteCount, insertedText]` entries (also accepted: an
    /// object holding that array under `"edits"`).
    static func edits(at url: URL) throws -> [Edit] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        let entries: [Any]
        if let array = json as? [Any] {
            entries = array
        } else if let object = json as? [String: Any], let array = object["edits"] as? [Any] {
            entries = array
        } else {
            throw FormatError.unexpected("neither an array nor an object with \"edits\"")
        }
        var result: [Edit] = []
        result.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            guard let fields = entry as? [Any], fields.count == 2 || fields.count == 3,
                  let position = (fields[0] as? NSNumber)?.intValue, let delete = (fields[1] as? NSNumber)?.intValue else {
                throw FormatError.unexpected("entry \(index) is not [position, delete, insert?]")
            }
            var insert = ""
            if fields.count == 3 {
                guard let text = fields[2] as? String else { throw FormatError.unexpected("entry \(index) inserts a non-string") }
                insert = text
            }
            result.append(Edit(position: position, delete: delete, insert: insert))
        }
        return result
    }
}
