import Crypto
import Foundation

/// A datastore's attachment bytes: one file per distinct content, named by
/// its SHA-256, in a folder of the datastore. A blob is written to a
/// temporary file, synced, and renamed into place, so a blob file is
/// always whole; writing the same content twice stores it once.
struct BlobStore: Sendable {
    let directory: URL

    /// Why a blob could not be read.
    enum ReadError: Error, CustomStringConvertible {
        case malformedDigest(String)
        case missing(String)
        case mismatch(String)

        var description: String {
            switch self {
            case .malformedDigest(let digest): return "malformed digest '\(digest)'"
            case .missing(let digest): return "blob \(digest) is missing"
            case .mismatch(let digest): return "blob \(digest) does not match its digest (corrupt)"
            }
        }
    }

    init(directory: URL) throws {
        self.directory = directory
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError.storage("cannot create the attachments folder \(directory.path): \(error.localizedDescription)")
        }
    }

    static func digest(of data: Data) -> String { "sha256-" + SHA256.hash(data: data).hexString }

    /// The 64 lowercase hex digits of a `sha256-<hex>` digest; nil for any other form.
    static func sha256Hex(ofDigest digest: String) -> String? {
        guard digest.hasPrefix("sha256-") else { return nil }
        let hex = String(digest.dropFirst(7))
        return hex.count == 64 && hex.allSatisfy(\.isHexDigit) ? hex.lowercased() : nil
    }

    func url(forHex hex: String) -> URL { directory.appendingPathComponent(hex) }

    /// Stores `data` (once per content) and returns its digest: `digest`,
    /// when the caller has computed it already.
    func write(_ data: Data, digest known: String? = nil) throws -> String {
        let digest = known ?? Self.digest(of: data)
        let target = url(forHex: String(digest.dropFirst(7)))
        if FileManager.default.fileExists(atPath: target.path) { return digest }
        let temporary = directory.appendingPathComponent(".tmp-\(UUID().uuidString)")
        do {
            try data.write(to: temporary)
            let handle = try FileHandle(forWritingTo: temporary)
            try handle.synchronize()
            try handle.close()
            if rename(temporary.path, target.path) != 0 {
                throw StoreError.storage("cannot move the blob into place: errno \(errno)")
            }
        } catch let error as StoreError {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw StoreError.storage("cannot write an attachment blob: \(error.localizedDescription)")
        }
        return digest
    }

    /// The bytes of the blob with `digest`, checked against it (and against
    /// `length`, when given).
    func read(digest: String, length: Int64? = nil) throws(ReadError) -> Data {
        guard let hex = Self.sha256Hex(ofDigest: digest) else {
            throw .malformedDigest(digest)
        }
        guard let data = try? Data(contentsOf: url(forHex: hex)) else { throw .missing(digest) }
        guard length.map({ $0 == Int64(data.count) }) ?? true, Self.digest(of: data) == digest else {
            throw .mismatch(digest)
        }
        return data
    }

    /// Whether the blob for `digest` is there with `length` bytes (its
    /// content is checked when it is read).
    func contains(digest: String, length: Int64) -> Bool {
        guard let hex = Self.sha256Hex(ofDigest: digest),
            let size = (try? FileManager.default.attributesOfItem(atPath: url(forHex: hex).path))?[.size] as? NSNumber
        else { return false }
        return size.int64Value == length
    }

    /// Removes every blob whose hex digest is not in `keep`, and leftover temporary files.
    func removeAll(except keep: Set<String>) throws -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var removed = 0
        for name in names where !keep.contains(name) {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            removed += 1
        }
        return removed
    }
}
