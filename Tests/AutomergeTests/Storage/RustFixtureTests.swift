import Foundation
import Testing
import AutomergeTestSupport
@_spi(Conformance) @testable import Automerge

/// The inputs of Rust's own test suite and fuzz crashers
/// (`../shared/fixtures`): each must either decode at the storage level or
/// be rejected with a `LoadError`, never crash. Whether a file *should* load
/// is finally a semantic question checked elsewhere; the table records what
/// the storage layer does with each, and every file Rust loads must decode.
@Suite("Rust fixtures and fuzz crashers", .enabled(if: SharedFiles.available, SharedFiles.skipMessage), .ownThread)
struct RustFixtureTests {
    static var inputs: [URL] {
        ["fixtures/rust-fixtures", "fixtures/rust-fuzz-crashers"].flatMap { directory in
            SharedFiles.files(in: directory, suffix: "").filter {
                !$0.lastPathComponent.hasSuffix(".json") && !$0.lastPathComponent.hasSuffix(".md")
            }
        }
    }

    /// What the storage layer does with each input: nil = decodes, else the
    /// (innermost) error. Files not listed here just must not crash.
    static let expected: [String: LoadError?] = [
        // rust-fixtures
        "64bit_obj_id_change.automerge": .startOpOutOfRange(4_398_046_511_104),
        "64bit_obj_id_doc.automerge": .opCounterOverflow(column: "change max op", row: 0),
        // 0.5.12 (which wrote the expected dump) loads it; 0.11, the newest, rejects it.
        "broken_zero_width_mark.automerge": .markEndBeforeBegin(row: 2),
        "counter_value_has_incorrect_meta.automerge": .invalidValue(column: "value", row: 0, reason: "extra bytes"),
        "counter_value_is_ok.automerge": nil,
        "counter_value_is_overlong.automerge": .overlongLEB128(what: "value"),
        "two_change_chunks.automerge": nil,
        "two_change_chunks_compressed.automerge": nil,
        "two_change_chunks_out_of_order.automerge": nil,  // queuing for missing deps is the op set's job
        // rust-fuzz-crashers (Rust rejects all of them, with other messages)
        // Rust reads one row (the action column's length) and rejects action 48.
        // So do we, since columns are read row by row (the key column's 47 extra
        // items would be reported after the last row).
        "action-is-48.automerge": .unknownAction(row: 0, action: 48),
        "crash-da39a3ee5e6b4b0d3255bfef95601890afd80709": .truncated(what: "document actors"),
        "incorrect_max_op.automerge": .opCounterOverflow(column: "id counter", row: 0),
        "invalid_deflate_stream.automerge": .badChecksum,
        "missing_actor.automerge": .truncated(what: "change deps group"),
        "overflow_in_length.automerge": .duplicateColumn(section: "document change", spec: 0),
        "too_many_deps.automerge": .columnLengthMismatch(
            column: "change deps", expected: 60_142_558_803_309_930, actual: 0),
        "too_many_ops.automerge": .columnLengthMismatch(
            column: "succ actor", expected: 16_454_096_276_377_245, actual: 0),
    ]

    /// Files Rust 0.5.12 loads but the newest Rust (0.11) rejects (fixtures/NOTES.md).
    static let rejectedSince011: Set<String> = ["broken_zero_width_mark.automerge"]

    @Test("there are fixtures") func fixturesExist() { #expect(Self.inputs.count >= 10) }

    @Test("each fixture decodes or is rejected with a LoadError", arguments: inputs)
    func decodesOrRejects(_ url: URL) throws {
        let bytes = try SharedFiles.bytes(url)
        let outcome: LoadError?
        do {
            _ = try StorageFile.decode(bytes)
            outcome = nil
        } catch {
            outcome = error.underlying
        }
        let expectsError = SharedFiles.expectsError(url)
        let name = url.lastPathComponent
        // Files not in the table (none today) only have to not crash.
        if let expected = Self.expected[name] {
            #expect(outcome == expected, "\(name): \(outcome.map(\.description) ?? "decoded")")
        }
        if !expectsError && !Self.rejectedSince011.contains(name) {
            #expect(outcome == nil, "\(name) loads in Rust but was rejected: \(outcome.map(\.description) ?? "")")
        }
    }
}

extension SharedFiles {
    /// Whether the Rust dump next to a fixture (`NAME.expected.json`) is an error.
    static func expectsError(_ url: URL) -> Bool {
        let dump = url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent + ".expected.json")
        guard let data = try? Data(contentsOf: dump),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return false }
        return json["error"] != nil
    }
}
