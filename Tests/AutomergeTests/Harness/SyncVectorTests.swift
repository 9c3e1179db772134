import Automerge
import AutomergeConformance
import Crypto
import Foundation
import Testing

extension Harness {
    /// `Vectors/sync`: this implementation passes them, they exercise what
    /// they claim, the Bloom filters follow the probe rule (checked here a
    /// third way), and the checker fails vectors that are wrong. (That the
    /// folder is what the generator writes is ``VectorTests``' test.)
    @Suite("Harness: sync vectors")
    struct SyncVectorTests {
        static let directory = VectorTests.directory

        static func manifest() throws -> VectorManifest { try VectorManifest(contentsOf: directory) }

        static func bytes(_ path: String, in directory: URL = directory) throws -> [UInt8] {
            [UInt8](try Data(contentsOf: directory.appendingPathComponent(path)))
        }

        static func json(_ path: String) throws -> [ExactString: JSONValue] {
            guard case .object(let members) = try JSONParser.parse(try bytes(path)) else { throw VectorError.badManifest("\(path) is not an object") }
            return members
        }

        @Test("this implementation passes every sync vector")
        func builtInPasses() throws {
            let results = try ConformanceRunner.runSyncVectors(in: Self.directory)
            #expect(results.count == (try Self.manifest()).sync.count)
            #expect(results.count >= 90)
            let failures = results.filter { !$0.passed }
            #expect(failures.isEmpty, "\(failures.prefix(3).map { "\($0.name): \($0.failure!)" })")
        }

        @Test("the manifest's sync array covers every category, and its document vectors read as before")
        func coverage() throws {
            let manifest = try Self.manifest()
            #expect(manifest.vectors.count == 252)
            #expect(manifest.vectors.allSatisfy { !$0.file.hasPrefix("sync/") && !$0.category.hasPrefix("sync") })
            let sync = manifest.sync
            #expect(Set(sync.map(\.category)) == ["sync-messages", "sync-states", "bloom", "sync-invalid"])
            #expect(Set(sync.map(\.name)).count == sync.count)
            for vector in sync {
                #expect(FileManager.default.fileExists(atPath: Self.directory.appendingPathComponent(vector.file).path), "\(vector.name)")
                #expect(!vector.exercises.isEmpty, "\(vector.name)")
                switch vector.expect {
                case .valid: #expect(vector.json != nil && vector.error == nil, "\(vector.name)")
                case .invalid: #expect(vector.json == nil && vector.error != nil && vector.message != nil, "\(vector.name)")
                case .either: Issue.record("\(vector.name) expects either")
                }
            }
            let invalid = sync.filter { $0.expect == .invalid }
            #expect(Set(invalid.map(\.kind)) == [.message, .state, .bloom])
            let errors = Set(invalid.filter { $0.kind == .message }.compactMap(\.error))
            for error in ["empty", "unknown-type", "truncated", "count-past-end", "length-past-end", "overlong-leb",
                          "leb-too-large", "bloom-without-bits", "too-many-probes"] {
                #expect(errors.contains(error), "no invalid message of category \(error)")
            }
            #expect(Set(invalid.filter { $0.kind == .state }.compactMap(\.error)).isSuperset(of: ["empty", "unknown-type", "truncated"]))
            // Re-encodings are recorded exactly where they differ.
            for vector in sync where vector.reencoded != nil {
                #expect(try Self.bytes(vector.reencoded!) != (try Self.bytes(vector.file)), "\(vector.name)")
            }
            let rust06 = try #require(sync.first { $0.name == "sync-messages/constructed/rust06-trailer" })
            #expect(try Self.bytes(rust06.file).suffix(3) == [0x02, 0x01, 0x02])
            #expect(try Self.bytes(try #require(rust06.reencoded)).suffix(3) == [0x02, 0x02, 0x80])
            // Every message's JSON is what `automerge sync-message` prints.
            for vector in sync where vector.kind == .message && vector.expect == .valid {
                let message = try SyncMessage(decoding: try Self.bytes(vector.file)[...])
                #expect(try Self.bytes(vector.json!) == Array((SyncMessageJSON.describe(message).serialized + "\n").utf8), "\(vector.name)")
            }
        }

        /// The decoded messages of one session, in order.
        static func session(_ name: String) throws -> [SyncMessage] {
            let vectors = try manifest().sync.filter { $0.name.hasPrefix("sync-messages/\(name)/") }
            return try vectors.map { try SyncMessage(decoding: try bytes($0.file)[...]) }
        }

        static func isWholeDocument(_ entry: [UInt8]) -> Bool {
            entry.count > 8 && entry.prefix(4) == [0x85, 0x6F, 0x4A, 0x83] && entry[8] == 0
        }

        /// How many change chunks (type 1) an entry holds back to back; nil if it holds anything else.
        static func changeChunks(_ entry: [UInt8]) -> Int? {
            guard let chunks = RawChunk.split(entry), !chunks.isEmpty, chunks.allSatisfy({ $0.type == 1 }) else { return nil }
            return chunks.count
        }

        @Test("each session's messages show what the session is for")
        func sessionsExercise() throws {
            let whole = try Self.session("whole-document")
            #expect(whole.contains { $0.version == .v2 && $0.changes.count == 1 && Self.isWholeDocument($0.changes[0]) })

            let diverged = try Self.session("diverged")
            #expect(diverged.filter { $0.version == .v2 && $0.changes.count == 1 && (Self.changeChunks($0.changes[0]) ?? 0) >= 2 }.count == 2,
                    "V2 batches of change chunks both ways")

            #expect(try Self.session("concurrent-heads").contains { $0.heads.count == 3 })

            let v1 = try Self.session("v1-peer")
            #expect(v1.allSatisfy { $0.version == .v1 })
            #expect(v1.contains { $0.flags == nil && $0.changes.count >= 2 && $0.changes.allSatisfy { Self.changeChunks($0) == 1 } },
                    "the peer without a trailer sends one change chunk per entry")
            #expect(v1.contains { $0.flags != nil && $0.changes.count >= 2 && $0.changes.allSatisfy { Self.changeChunks($0) == 1 } },
                    "and is sent one change chunk per entry")

            let readOnly = try Self.session("read-only")
            let firstReset = try #require(readOnly.firstIndex { $0.flags?.contains(.syncReset) == true })
            #expect(readOnly[..<firstReset].contains { $0.flags?.contains(.readOnly) == true })
            #expect(!readOnly[firstReset...].contains { $0.flags?.contains(.readOnly) == true })

            let reset = try Self.session("reset")
            #expect(reset.count >= 2)
            // b's first message names a last sync a lacks; a answers with Rust's reset message.
            #expect(reset[0].have.first?.lastSync.isEmpty == false)
            let answer = reset[1]
            #expect(answer.version == .v1 && !answer.heads.isEmpty && answer.need.isEmpty && answer.changes.isEmpty)
            #expect(answer.have == [SyncHave()] && answer.flags == [.supportsSyncReset])
        }

        // MARK: Bloom filters, a third way

        static func sha256(_ text: String) -> String {
            Bytes.hex(Array(SHA256.hash(data: Array(text.utf8))))
        }

        /// The probe rule as the digest states it, on bit arrays.
        struct Filter {
            var entries: Int, bitsPerEntry: Int, probes: Int
            var bits: [Bool]

            init(entries: Int, bitsPerEntry: Int, probes: Int) {
                (self.entries, self.bitsPerEntry, self.probes) = (entries, bitsPerEntry, probes)
                bits = Array(repeating: false, count: ((entries * bitsPerEntry + 7) / 8) * 8)
            }

            func positions(_ hash: [UInt8]) -> [Int] {
                let m = UInt64(bits.count)
                func word(_ at: Int) -> UInt64 { (0..<4).reduce(0) { $0 | UInt64(hash[at + $1]) << (8 * UInt64($1)) } }
                var (x, y) = (word(0) % m, word(4) % m)
                let z = word(8) % m
                var out = [Int(x)]
                while out.count < probes {
                    x = (x + y) % m
                    y = (y + z) % m
                    out.append(Int(x))
                }
                return out
            }

            mutating func add(_ hash: [UInt8]) { for p in positions(hash) { bits[p] = true } }
            func contains(_ hash: [UInt8]) -> Bool { entries > 0 && positions(hash).allSatisfy { bits[$0] } }

            var encoded: [UInt8] {
                guard entries > 0 else { return [] }
                var out = [entries, bitsPerEntry, probes].flatMap { Bytes.uleb(UInt64($0)) }
                for start in stride(from: 0, to: bits.count, by: 8) {
                    out.append((0..<8).reduce(UInt8(0)) { bits[start + $1] ? $0 | 1 << $1 : $0 })
                }
                return out
            }
        }

        @Test("the Bloom filters follow the probe rule, rebuilt here on bit arrays")
        func bloomFiltersIndependently() throws {
            let filters = try Self.manifest().sync.filter { $0.kind == .bloom && $0.expect == .valid }
            #expect(filters.count == 6)
            var falsePositives = 0
            for vector in filters {
                let json = try Self.json(vector.json!)
                func int(_ key: String, _ fallback: Int) -> Int {
                    if case .number(let n)? = json[ExactString(key)] { return Int(n)! } else { return fallback }
                }
                guard case .array(let hashList)? = json["hashes"], case .array(let checks)? = json["checks"] else {
                    Issue.record("\(vector.name): no hashes or checks")
                    continue
                }
                let hashes = hashList.map { value -> String in if case .string(let s) = value { return s } else { return "" } }
                #expect(hashes == (0..<hashes.count).map { Self.sha256("hash \($0)") }, "\(vector.name): hashes are sha256(\"hash i\")")
                var filter = Filter(entries: int("entries", -1), bitsPerEntry: int("bits_per_entry", 10), probes: int("probes_per_hash", 7))
                #expect(filter.entries == hashes.count)
                for hash in hashes { filter.add(Bytes.fromHex(Substring(hash))!) }
                #expect(filter.encoded == (try Self.bytes(vector.file)), "\(vector.name): bytes")
                for case .object(let check) in checks {
                    guard case .string(let hex)? = check["hash"], case .bool(let member)? = check["member"],
                          case .bool(let contains)? = check["contains"] else { continue }
                    #expect(filter.contains(Bytes.fromHex(Substring(hex))!) == contains, "\(vector.name): \(hex)")
                    #expect(member == hashes.contains(hex))
                    if !member && contains { falsePositives += 1 }
                }
            }
            #expect(falsePositives >= 5, "every non-empty filter records a false positive")
        }

        // MARK: The checker can fail

        @Test("the checker fails vectors that are wrong, and only those")
        func checkerCatchesTampering() throws {
            let copy = FileManager.default.temporaryDirectory.appendingPathComponent("sync-vectors-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: copy) }
            try FileManager.default.copyItem(at: Self.directory.appendingPathComponent("sync"), to: copy.appendingPathComponent("sync"))
            try FileManager.default.copyItem(at: Self.directory.appendingPathComponent(VectorManifest.fileName),
                                             to: copy.appendingPathComponent(VectorManifest.fileName))
            func edit(_ path: String, _ change: (inout [UInt8]) -> Void) throws {
                var bytes = try Self.bytes(path, in: copy)
                change(&bytes)
                try Data(bytes).write(to: copy.appendingPathComponent(path))
            }
            func replace(_ path: String, _ old: String, _ new: String) throws {
                let text = String(decoding: try Self.bytes(path, in: copy), as: UTF8.self)
                #expect(text.contains(old), "\(path) has no \(old)")
                try edit(path) { $0 = Array(text.replacingOccurrences(of: old, with: new).utf8) }
            }
            // A wrong decoded form, a wrong flag, a wrong re-encoding, a flipped filter bit,
            // a wrong contains answer, a wrong state and an invalid input that decodes.
            try replace("sync/messages/diverged/03-a-to-b.json", "\"version\":2", "\"version\":1")
            try replace("sync/messages/read-only/01-a-to-b.json", "\"read_only\",", "")
            try edit("sync/messages/constructed/rust06-trailer.reencoded.syncmsg") { $0[$0.count - 1] = 0x84 }
            try edit("sync/bloom/ten-hashes.bloom") { $0[5] ^= 0x10 }
            try replace("sync/bloom/hundred-hashes.json", "\"contains\":true,\"hash\":\"\(Self.sha256("hash 0"))\"",
                        "\"contains\":false,\"hash\":\"\(Self.sha256("hash 0"))\"")
            try replace("sync/states/three-shared-heads.json", "[\"231f", "[\"331f")
            let valid = try Self.bytes("sync/messages/constructed/need-entries.syncmsg")
            try edit("sync/invalid/truncated-change.syncmsg") { $0 = valid }
            try edit("sync/invalid/state-empty.syncstate") { $0 = [0x43, 0x00] }

            let results = try ConformanceRunner.runSyncVectors(in: copy)
            let failed = Set(results.filter { !$0.passed }.map(\.name))
            #expect(failed == [
                "sync-messages/diverged/03-a-to-b", "sync-messages/read-only/01-a-to-b", "sync-messages/constructed/rust06-trailer",
                "bloom/ten-hashes", "bloom/hundred-hashes", "sync-states/three-shared-heads",
                "sync-invalid/truncated-change", "sync-invalid/state-empty",
            ])
            let failure = results.first { $0.name == "sync-messages/diverged/03-a-to-b" }?.failure ?? ""
            #expect(failure.contains("$.version: expected 1, got 2"), "\(failure)")
        }
    }
}
