import Automerge
import AutomergeConformance
import Foundation
import Testing

extension Harness {
    /// The committed `Vectors/` are what the generator produces, and this
    /// implementation passes them, in process and through the dump protocol.
    @Suite("Harness: conformance vectors")
    struct VectorTests {
        static let directory = SharedFiles.packageRoot.appendingPathComponent("Vectors")

        /// Every file under `directory` except the hand-written README, by relative path.
        static func files(under directory: URL) throws -> [String: Data] {
            var result: [String: Data] = [:]
            let base = directory.standardizedFileURL.path + "/"
            let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
            while let url = enumerator?.nextObject() as? URL {
                guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
                let path = String(url.standardizedFileURL.path.dropFirst(base.count))
                if path == "README.md" { continue }
                result[path] = try Data(contentsOf: url)
            }
            return result
        }

        @Test("the committed vectors are exactly what `automerge vectors generate` writes")
        func committedVectorsAreGenerated() throws {
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("vectors-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: output) }
            try VectorGenerator.generate().write(to: output)
            let generated = try Self.files(under: output)
            let committed = try Self.files(under: Self.directory)
            #expect(Set(generated.keys) == Set(committed.keys), "run `swift run automerge vectors generate` and commit Vectors/")
            let changed = generated.keys.filter { committed[$0] != nil && committed[$0] != generated[$0] }.sorted()
            #expect(changed.isEmpty, "these vectors differ from the generator's output: \(changed.prefix(10))")

            let again = try VectorGenerator.generate()
            #expect(again.files == (try VectorGenerator.generate()).files, "generating twice gives different bytes")
        }

        @Test("the manifest covers what the conformance suite promises")
        func manifestCoverage() throws {
            let manifest = try VectorManifest(contentsOf: Self.directory)
            let valid = manifest.vectors.filter { $0.expect == .valid }
            let invalid = manifest.vectors.filter { $0.expect == .invalid }
            #expect(valid.count >= 150)
            #expect(invalid.count >= 40)
            #expect(invalid.allSatisfy { $0.error != nil && !$0.exercises.isEmpty })
            #expect(valid.allSatisfy { $0.dump != nil && $0.save != nil && !$0.exercises.isEmpty })
            let categories = Set(valid.map(\.category))
            for category in ["ops", "scalars", "text", "marks", "counters", "conflicts", "lists", "nested", "actors", "history", "chunks", "encoding"] {
                #expect(categories.contains(category), "no \(category) vectors")
            }
            let errors = Set(invalid.compactMap(\.error))
            for error in ["bad-magic", "bad-checksum", "truncated", "overlong-leb", "non-canonical-rle", "columns-out-of-order",
                          "actor-index-out-of-range", "sequence-gap", "heads-mismatch", "invalid-utf8", "unknown-action",
                          "op-counter-overflow", "mark-end-before-begin", "length-past-end"] {
                #expect(errors.contains(error), "no invalid vector of category \(error)")
            }
            #expect(manifest.scripts.count >= 100)
            let scriptCategories = Set(manifest.scripts.map(\.category))
            for category in ["put", "objects", "lists", "delete", "counters", "history", "text", "update-text", "marks"] {
                #expect(scriptCategories.contains(category), "no \(category) scripts")
            }
            var size = 0
            for (_, data) in try Self.files(under: Self.directory) { size += data.count }
            #expect(size < 10_000_000)
        }

        /// The chunks of a vector's file, with document and change layouts parsed.
        static func chunks(_ name: String) throws -> [RawChunk] {
            let manifest = try VectorManifest(contentsOf: directory)
            let vector = try #require(manifest.vectors.first { $0.name == name })
            return try #require(RawChunk.split([UInt8](try Data(contentsOf: directory.appendingPathComponent(vector.file)))))
        }

        /// The op columns of a document or change chunk.
        static func columns(_ chunk: RawChunk) throws -> [RawColumn] {
            if chunk.type == 0 { return try #require(DocumentLayout.parse(chunk.contents)).0.opColumns }
            return try #require(ChangeLayout.parse(chunk.contents)).0.columns
        }

        @Test("the encoding vectors contain the encodings they claim")
        func encodingVectorsExercise() throws {
            // A boolean column whose first run (of false) is empty.
            let changes = try Self.chunks("encoding/insert-column-starts-true")
            #expect(try changes.contains { try Self.columns($0).contains { $0.spec == 52 && $0.data.first == 0 } })
            // Deflated and plain columns in one document.
            let mixed = try Self.columns(try Self.chunks("encoding/deflated-and-plain-columns")[0])
            #expect(mixed.contains { $0.spec & 8 != 0 } && mixed.contains { $0.spec & 8 == 0 })
            #expect(try Self.columns(try Self.chunks("encoding/plain-columns")[0]).allSatisfy { $0.spec & 8 == 0 })
            // Negative deltas: the op id counters of a prepended list decrease along the document order.
            let prepended = try Self.columns(try Self.chunks("lists/prepended")[0])
            let idCounters = try #require(prepended.first { $0.spec == 35 })
            #expect(ColumnCodec.decodeRLE(idCounters.data, signed: true)?.contains { ($0 ?? 0) < 0 } == true)
            // Repeat, literal and null runs.
            func runs(_ name: String, spec: UInt64) throws -> [Int64] {
                let column = try #require(try Self.columns(try Self.chunks(name)[0]).first { $0.spec == spec })
                return try #require(ColumnCodec.runHeaders(column.data, signed: false))
            }
            #expect(try runs("encoding/repeat-runs", spec: 66).contains { $0 >= 2 })
            #expect(try runs("encoding/null-runs", spec: 1).contains(0))
            #expect(try runs("encoding/literal-runs", spec: 86).contains { $0 < -1 })
            // Compressed change chunks, orphans after a document.
            #expect(try Self.chunks("chunks/compressed-change-chunks").contains { $0.type == 2 })
            #expect(try Self.chunks("chunks/orphan-changes").map(\.type) == [0, 1, 1])
        }

        /// Rust 0.11 hashes a change chunk as it stands in the file (SHA-256
        /// of its type, length and contents), however a writer would encode
        /// the change: a vector must record that hash, not the hash of the
        /// change re-encoded (as the duplicate-column change once did).
        @Test("a file of one change chunk records the SHA-256 of that chunk as written as its heads")
        func changeChunkHeadsAreAsWritten() throws {
            let manifest = try VectorManifest(contentsOf: Self.directory)
            var checked: [String] = []
            for vector in manifest.vectors where vector.expect != .invalid {
                let bytes = [UInt8](try FileAccess.read(Self.directory.appendingPathComponent(vector.file).path))
                guard let chunks = RawChunk.split(bytes), chunks.count == 1, chunks[0].type == 1 else { continue }
                let asWritten = Bytes.hex(Bytes.sha256(Array(bytes[8...])))
                #expect(vector.heads == [asWritten], "\(vector.name): manifest heads")
                let dump = try JSONParser.parse([UInt8](try FileAccess.read(Self.directory.appendingPathComponent(vector.dump!).path)))
                guard case .object(let members) = dump else { continue }
                #expect(members["heads"] == .array([.string(asWritten)]), "\(vector.name): dump heads")
                checked.append(vector.name)
            }
            #expect(checked.contains("either/change-duplicate-column") && checked.count > 1, "\(checked)")
        }

        @Test("this implementation passes every vector in process, under either execution policy",
              arguments: [ExecutionPolicy.parallel, .singleThreaded])
        func builtInPasses(policy: ExecutionPolicy) throws {
            let results = try ExecutionPolicy.withPolicy(policy) {
                try ConformanceRunner.runVectors(in: Self.directory, against: .builtIn)
            }
            let failures = results.filter { !$0.passed }
            #expect(failures.isEmpty, "\(failures.prefix(3).map { "\($0.name): \($0.failure!)" })")
        }

        /// A stand-in "implementation" that answers with the expected dumps: the
        /// dump protocol path must pass it, and must fail one that accepts everything.
        @Test("the dump protocol: a program that follows it passes, one that accepts everything fails")
        func externalProtocol() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("impl-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let oracle = directory.appendingPathComponent("oracle.sh")
            try """
                #!/bin/sh
                # usage: oracle.sh dump FILE
                json="${2%.automerge}.json"
                if [ -f "$json" ]; then cat "$json"; else echo '{"error": "rejected"}'; exit 1; fi
                """.write(to: oracle, atomically: true, encoding: .utf8)
            let liar = directory.appendingPathComponent("liar.sh")
            try "#!/bin/sh\necho '{\"heads\": [], \"changes\": 0, \"doc\": {\"map\": {}}}'\n".write(to: liar, atomically: true, encoding: .utf8)

            let manifest = try VectorManifest(contentsOf: Self.directory)
            let sample = manifest.vectors.enumerated().filter { $0.offset % 8 == 0 }.map(\.element)
            for vector in sample {
                let good = try ConformanceRunner.check(vector, in: Self.directory, against: .external(command: "sh '\(oracle.path)'"))
                #expect(good == nil, "\(vector.name): \(good ?? "")")
                let bad = try ConformanceRunner.check(vector, in: Self.directory, against: .external(command: "sh '\(liar.path)'"))
                if vector.name != "ops/empty-document" { #expect(bad != nil, "\(vector.name) passed an implementation that accepts everything") }
            }
        }

        @Test("dumps compare as JSON values: number spelling and mark order do not matter")
        func dumpComparison() throws {
            let a = try JSONParser.parse(#"{"doc": {"text": "ab", "marks": [{"name": "b", "start": 0, "end": 1, "value": {"int": 1}}, {"name": "a", "start": 1, "end": 2, "value": {"int": 10}}]}, "changes": 2}"#)
            let b = try JSONParser.parse(#"{"changes": 2.0, "doc": {"marks": [{"name": "a", "start": 1, "end": 2, "value": {"int": 1e1}}, {"name": "b", "start": 0, "end": 1, "value": {"int": 1}}], "text": "ab"}}"#)
            #expect(JSONDiff.equal(a, b))
            let c = try JSONParser.parse(#"{"changes": 3, "doc": {"text": "ab"}}"#)
            #expect(!JSONDiff.equal(a, c))
            #expect(JSONDiff.describe(expected: a, actual: c).contains("$.changes: expected 2, got 3"))
            let big = try JSONParser.parse(#"{"uint": 18446744073709551615}"#), bigger = try JSONParser.parse(#"{"uint": 18446744073709551614}"#)
            #expect(!JSONDiff.equal(big, bigger), "64-bit integers must compare exactly")
        }
    }
}
