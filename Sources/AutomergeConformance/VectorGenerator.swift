import Automerge
import Foundation

/// Builds `Vectors/` from the scenario definitions in `ValidVectors`,
/// `InvalidVectors`, `SyncVectors` and `ScriptVectors`. Everything is fixed (actor ids,
/// timestamps) or seeded, so generating twice gives the same bytes.
public enum VectorGenerator {
    public static func generate() throws -> GeneratedVectors {
        var builder = VectorBuilder()
        try ValidVectors.add(to: &builder)
        try InvalidVectors.add(to: &builder)
        var syncBuilder = SyncVectorBuilder()
        try SyncVectors.add(to: &syncBuilder)
        var scriptBuilder = ScriptVectorBuilder()
        try ScriptVectors.add(to: &scriptBuilder)
        var files = builder.files.merging(syncBuilder.files.merging(scriptBuilder.files) { _, _ in
            preconditionFailure("sync and script vectors share a path")
        }) { _, _ in
            preconditionFailure("document vectors share a path with sync or script vectors")
        }
        let manifest = VectorManifest(vectors: builder.vectors, sync: syncBuilder.vectors, scripts: scriptBuilder.vectors)
        files[VectorManifest.fileName] = Array(manifest.text.utf8)
        return GeneratedVectors(files: files, manifest: manifest)
    }
}

/// Collects vectors and their files, checking each against this implementation as it goes.
struct VectorBuilder {
    var files: [String: [UInt8]] = [:]
    var vectors: [Vector] = []
    private var names: Set<String> = []

    private mutating func claim(_ name: String) throws {
        guard names.insert(name).inserted else { throw VectorError.generator("duplicate vector name \(name)") }
    }

    /// A file that must load: records its dump, heads and uncompressed save.
    mutating func valid(_ category: String, _ name: String, _ exercises: String, _ bytes: Data) throws {
        let fullName = "\(category)/\(name)"
        try claim(fullName)
        let doc: Document
        do { doc = try Document(bytes) } catch {
            throw VectorError.generator("valid vector \(fullName) does not load: \(error)")
        }
        let heads = doc.heads().sorted().map(\.description)
        if let written = WrittenHeads.of([UInt8](bytes)), written != heads {
            throw VectorError.generator("valid vector \(fullName) loads with heads \(heads), not those of its chunks as written: \(written)")
        }
        let base = "valid/\(category)/\(name)"
        let save = doc.save(compress: false)
        files[base + ".automerge"] = [UInt8](bytes)
        files[base + ".json"] = Array((CanonicalDump.dump(doc).serialized + "\n").utf8)
        let savePath = save == bytes ? base + ".automerge" : base + ".nocompress"
        files[savePath] = [UInt8](save)
        vectors.append(Vector(
            name: fullName, category: category, expect: .valid, exercises: exercises, file: base + ".automerge",
            dump: base + ".json", save: savePath, heads: heads))
    }

    /// A document: saved compressed (the default `save()`), unless `compress` is false.
    mutating func valid(_ category: String, _ name: String, _ exercises: String, _ doc: Document, compress: Bool = true) throws {
        try valid(category, name, exercises, doc.save(compress: compress))
    }

    /// A file that must be rejected, with the named error category.
    mutating func invalid(_ category: String, _ name: String, error: String, _ exercises: String, _ bytes: [UInt8]) throws {
        let fullName = "invalid/\(name)"
        try claim(fullName)
        let message: String
        do {
            _ = try Document(Data(bytes))
            throw VectorError.generator("invalid vector \(fullName) loads")
        } catch let failure as VectorError {
            throw failure
        } catch {
            message = String(describing: error)
        }
        let path = "invalid/\(name).automerge"
        files[path] = bytes
        vectors.append(Vector(
            name: fullName, category: category, expect: .invalid, exercises: exercises, file: path,
            error: error, message: message))
    }

    /// A file the spec forbids (with the named error category) but the
    /// reference loads, reading it as `reference`: records the dump of
    /// `reference` with the heads of the file's chunks as written, which
    /// Rust reports (``WrittenHeads``) where `reference`, a file without the
    /// defect, has the hashes of other bytes. This implementation may reject
    /// the file; if it loads it, it must read it so.
    mutating func either(_ category: String, _ name: String, error: String, _ exercises: String, _ bytes: [UInt8],
                         readAs reference: Document) throws {
        let fullName = "either/\(name)"
        try claim(fullName)
        guard let heads = WrittenHeads.of(bytes) else {
            throw VectorError.generator("either vector \(fullName): no heads can be read from its chunks as written")
        }
        guard case .object(var dump) = CanonicalDump.dump(reference) else { preconditionFailure("a dump is an object") }
        dump["heads"] = .array(heads.map(JSONValue.string))
        var message: String?
        do {
            let doc = try Document(Data(bytes))
            guard CanonicalDump.dump(doc) == .object(dump) else {
                throw VectorError.generator("either vector \(fullName) loads as another document than the reference's")
            }
        } catch let failure as VectorError {
            throw failure
        } catch {
            message = String(describing: error)
        }
        let base = "either/\(name)"
        files[base + ".automerge"] = bytes
        files[base + ".json"] = Array((JSONValue.object(dump).serialized + "\n").utf8)
        vectors.append(Vector(
            name: fullName, category: category, expect: .either, exercises: exercises, file: base + ".automerge",
            dump: base + ".json", heads: heads, error: error, message: message))
    }
}

/// Fixed inputs for deterministic documents.
enum Fixed {
    /// 2023-11-14T22:13:20Z, the base of every change time.
    static let epoch = 1_700_000_000.0

    /// A document writing as the actor with these hex bytes.
    static func doc(_ actorHex: String = "aa") -> Document {
        let doc = Document()
        doc.actor = ActorId(hexString: actorHex)!
        return doc
    }

    /// A copy of `doc` writing as another actor.
    static func fork(_ doc: Document, _ actorHex: String) -> Document {
        let copy = doc.fork()
        copy.actor = ActorId(hexString: actorHex)!
        return copy
    }

    /// Commits with a fixed time `seconds` after ``epoch``.
    static func commit(_ doc: Document, _ seconds: Int = 0, _ message: String? = nil) {
        doc.commitWith(message: message, timestamp: Date(timeIntervalSince1970: epoch + Double(seconds)))
    }

    /// Every peer merges every other one.
    static func mergeAll(_ docs: [Document]) throws {
        for a in docs { for b in docs where a !== b { try a.merge(other: b) } }
    }
}
