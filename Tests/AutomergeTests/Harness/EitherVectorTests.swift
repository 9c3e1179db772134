import Automerge
import AutomergeConformance
import Foundation
import Testing

extension Harness {
    /// Vectors the format spec forbids but Rust 0.11 loads (`expect: either`):
    /// an implementation passes by rejecting them or by reading them as
    /// Rust does, and the report lists which it did apart from failures.
    @Suite("Harness: vectors a reader may reject or load")
    struct EitherVectorTests {
        static let directory = VectorTests.directory

        static func eitherVectors() throws -> [Vector] {
            try VectorManifest(contentsOf: directory).vectors.filter { $0.expect == .either }
        }

        /// Stand-in implementations following the dump protocol, in a scratch directory.
        struct Programs {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("either-\(UUID().uuidString)")
            /// Rejects every file.
            var rejecter: Implementation { .external(command: "sh '\(directory.path)/rejecter.sh'") }
            /// Prints the dump recorded beside the file: loads it as Rust reads it.
            var reference: Implementation { .external(command: "sh '\(directory.path)/reference.sh'") }
            /// Loads every file as an empty document.
            var liar: Implementation { .external(command: "sh '\(directory.path)/liar.sh'") }

            init() throws {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try "#!/bin/sh\necho '{\"error\": \"rejected\"}'\nexit 1\n"
                    .write(to: directory.appendingPathComponent("rejecter.sh"), atomically: true, encoding: .utf8)
                try "#!/bin/sh\ncat \"${2%.automerge}.json\"\n"
                    .write(to: directory.appendingPathComponent("reference.sh"), atomically: true, encoding: .utf8)
                try "#!/bin/sh\necho '{\"heads\": [], \"changes\": 0, \"doc\": {\"map\": {}}}'\n"
                    .write(to: directory.appendingPathComponent("liar.sh"), atomically: true, encoding: .utf8)
            }

            func remove() { try? FileManager.default.removeItem(at: directory) }
        }

        @Test("the duplicate-column files are either-way vectors, not invalid ones")
        func duplicateColumnsAreEitherWay() throws {
            let manifest = try VectorManifest(contentsOf: Self.directory)
            let duplicates = manifest.vectors.filter { $0.error == "duplicate-column" }
            #expect(Set(duplicates.map(\.name)) == ["either/document-duplicate-column", "either/change-duplicate-column"])
            #expect(duplicates.allSatisfy { $0.expect == .either && $0.dump != nil && !$0.heads.isEmpty })
        }

        /// Why the recorded dump is Rust's reading: Rust keeps the later of two
        /// columns with one spec, and here both copies hold the same bytes, so
        /// dropping either copy gives back the document the dump was made
        /// from; only the heads are the file's own (a change's hash is that of
        /// its chunk as written, see `VectorTests`).
        @Test("each duplicated column repeats its neighbour byte for byte, so any reading of the file is the recorded one")
        func duplicatesAreIdenticalCopies() throws {
            for vector in try Self.eitherVectors() {
                let chunk = try #require(VectorTests.chunks(vector.name).first)
                var columns = try VectorTests.columns(chunk)
                let index = try #require(columns.indices.dropFirst().first { columns[$0].spec == columns[$0 - 1].spec })
                #expect(columns[index] == columns[index - 1], "\(vector.name): the two copies differ")
                columns.remove(at: index)
                var reference = chunk
                if chunk.type == 0 {
                    var layout = try #require(DocumentLayout.parse(chunk.contents)).0
                    layout.opColumns = columns
                    reference.contents = layout.contents
                } else {
                    var layout = try #require(ChangeLayout.parse(chunk.contents)).0
                    layout.columns = columns
                    reference.contents = layout.contents
                }
                reference.reseal()
                let doc = try Document(Data(reference.bytes))
                let recorded = try JSONParser.parse([UInt8](try FileAccess.read(Self.directory.appendingPathComponent(vector.dump!).path)))
                guard case .object(var reading) = recorded, case .object(let withoutDuplicate) = CanonicalDump.dump(doc) else {
                    Issue.record("\(vector.name): a dump is not an object")
                    continue
                }
                #expect(reading["heads"] == .array(vector.heads.map(JSONValue.string)), "\(vector.name): dump and manifest heads differ")
                reading["heads"] = withoutDuplicate["heads"]
                #expect(reading == withoutDuplicate, "\(vector.name): the file without its duplicate reads otherwise")
            }
        }

        @Test("an implementation passes by rejecting the file or by reading it as Rust does, not by reading something else")
        func eitherOutcomePasses() throws {
            let programs = try Programs()
            defer { programs.remove() }
            let vectors = try Self.eitherVectors()
            #expect(!vectors.isEmpty)
            for vector in vectors {
                #expect(try ConformanceRunner.check(vector, in: Self.directory, against: programs.rejecter) == nil)
                #expect(try ConformanceRunner.check(vector, in: Self.directory, against: programs.reference) == nil)
                #expect(try ConformanceRunner.check(vector, in: Self.directory, against: .builtIn) == nil)
                let wrong = try ConformanceRunner.check(vector, in: Self.directory, against: programs.liar)
                #expect(wrong?.contains("dump differs") == true, "\(vector.name): \(wrong ?? "passed")")
            }
        }

        @Test("the report lists what the implementation did with each either-way vector, apart from failures")
        func reportListsOutcomes() throws {
            let programs = try Programs()
            defer { programs.remove() }
            // A vectors directory holding only the either-way vectors.
            let scratch = programs.directory.appendingPathComponent("vectors")
            let vectors = try Self.eitherVectors()
            for vector in vectors {
                for path in [vector.file, vector.dump!] {
                    let url = scratch.appendingPathComponent(path)
                    try FileAccess.createDirectory(url.deletingLastPathComponent().path)
                    try FileAccess.write(try FileAccess.read(Self.directory.appendingPathComponent(path).path), to: url.path)
                }
            }
            try FileAccess.write(Data(VectorManifest(vectors: vectors).text.utf8), to: scratch.appendingPathComponent(VectorManifest.fileName).path)

            for (implementation, outcome) in [(programs.rejecter, AllowedOutcome.rejected), (programs.reference, .loaded)] {
                let results = try ConformanceRunner.runVectors(in: scratch, against: implementation)
                #expect(results.count == vectors.count && results.allSatisfy { $0.passed && $0.allowedOutcome == outcome })
                let report = ConformanceReport(implementation: implementation.name, results: results, seconds: 0)
                #expect(report.passed)
                for vector in vectors { #expect(report.text.contains("  \(vector.name): \(outcome.rawValue)\n")) }
                #expect(report.text.contains("conformance: \(vectors.count) passed, 0 failed"))
                guard case .object(let members) = report.json, case .array(let allowed)? = members["allowed"] else {
                    Issue.record("the JSON report has no 'allowed' list")
                    continue
                }
                #expect(allowed.count == vectors.count)
            }
            let lied = try ConformanceRunner.runVectors(in: scratch, against: programs.liar)
            #expect(lied.allSatisfy { !$0.passed && $0.allowedOutcome == .loaded })
        }
    }
}
