import Automerge
import AutomergeConformance
import Foundation

/// The attack surfaces the fuzzers exercise. Each case takes arbitrary bytes
/// and either returns (the input was handled: loaded, or rejected with a
/// typed error) or throws ``FuzzFailure`` when an invariant is broken.
///
/// The libFuzzer executables in `Fuzz/Package.swift` turn a ``FuzzFailure``
/// into a crash; `swift test` replays `Corpus/<target>/` through the same
/// code without libFuzzer (`CorpusReplayTests`).
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// `Document(bytes)`; when it loads: dump, save, reload, equal dump and heads.
    case load
    /// A fixed base document, then `applyEncodedChanges(bytes)`; the document
    /// stays usable and saves and reloads equal.
    case changes
    /// `Document(bytes)`, then `AutomergeDecoder` into rich Codable models.
    case decode
    /// The bytes as an edit script for three peers that must converge.
    case ops
    /// Two selector bytes, then a sync message received at some point of a
    /// real sync session, and a saved sync state.
    case sync
    /// One frame of the automerge-repo network: a CBOR item and a
    /// `RepoMessage` (`AutomergeRepoProtocol`) that round-trip and say what
    /// their bytes say.
    case repoMessage = "repo-message"

    /// Runs the target on one input.
    public func run(_ data: Data) throws(FuzzFailure) {
        switch self {
        case .load: try LoadTarget.run(data)
        case .changes: try ChangesTarget.run(data)
        case .decode: try DecodeTarget.run(data)
        case .ops: try OpsTarget.run(data)
        case .sync: try SyncTarget.run(data)
        case .repoMessage: try RepoMessageTarget.run(data)
        }
    }

    /// The largest input worth trying (libFuzzer's `-max_len`).
    public var maxLength: Int {
        switch self {
        case .load, .decode: return 65_536
        case .changes, .sync, .repoMessage: return 16_384
        case .ops: return 4_096
        }
    }
}

/// A broken invariant: the one thing a fuzz target reports.
public struct FuzzFailure: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Checks shared by the targets.
enum Check {
    static func that(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzFailure) {
        if !condition { throw FuzzFailure(message()) }
    }

    /// A library call on untrusted input may fail, but only with the library's own error type.
    static func typedLoadError(_ error: any Error, _ context: String) throws(FuzzFailure) {
        _ = String(describing: error)  // describing an error must not trap either
        guard error is AutomergeError else {
            throw FuzzFailure("\(context): untyped error \(type(of: error)): \(error)")
        }
    }

    /// Saves `doc` both ways, reloads each, and requires the same dump and
    /// heads; saving the reloaded document again gives the same bytes.
    /// Returns the uncompressed save.
    @discardableResult
    static func saveReload(_ doc: Document, _ context: String) throws(FuzzFailure) -> Data {
        let heads = doc.heads()
        let plain = doc.save(compress: false)
        for compress in [false, true] {
            let bytes = compress ? doc.save(compress: true) : plain
            let reloaded: Document
            do { reloaded = try Document(bytes) } catch {
                throw FuzzFailure("\(context): save(compress: \(compress)) does not load: \(error)")
            }
            try that(reloaded.heads() == heads, "\(context): heads differ after save(compress: \(compress)) and reload")
            try sameContent(doc, reloaded, "\(context): save(compress: \(compress)) and reload")
            try that(reloaded.save(compress: false) == plain, "\(context): saving the reloaded document (compress: \(compress)) gives other bytes")
        }
        return plain
    }

    /// Reads the document through the public API (not only the snapshot the dump uses).
    static func readEverything(_ doc: Document) {
        for (obj, type) in Objects.all(doc) {
            _ = doc.length(obj: obj)
            _ = try? doc.path(obj: obj)
            switch type {
            case .Map:
                for key in doc.keys(obj: obj) {
                    _ = try? doc.get(obj: obj, key: key)
                    _ = try? doc.getAll(obj: obj, key: key)
                }
            case .List:
                _ = try? doc.values(obj: obj)
                let length = doc.length(obj: obj)
                if length > 0 { _ = try? doc.getAll(obj: obj, index: length - 1) }
            case .Text:
                _ = try? doc.text(obj: obj)
                _ = try? doc.marks(obj: obj)
                let length = doc.length(obj: obj)
                if let cursor = try? doc.cursor(obj: obj, position: length / 2) {
                    _ = try? doc.position(obj: obj, cursor: cursor)
                }
            }
        }
    }
}

/// The objects of a document, found by walking from the root.
enum Objects {
    static func all(_ doc: Document, limit: Int = 10_000) -> [(ObjId, ObjType)] {
        var result: [(ObjId, ObjType)] = [(.ROOT, .Map)]
        var index = 0
        while index < result.count, result.count < limit {
            let (obj, type) = result[index]
            index += 1
            if type == .Text { continue }
            for case .Object(let child, let childType) in (try? doc.values(obj: obj)) ?? [] {
                result.append((child, childType))
            }
        }
        return result
    }
}

/// Fixed actors, so that every run of an input does exactly the same thing.
enum FixedActor {
    static func make(_ tag: UInt8) -> ActorId {
        ActorId(data: Data([0xf0, 0x22, 0x00, tag]))!
    }
}
