import AutomergeTestSupport
import Foundation
import Testing

/// `automerge serve` runs bulk document work on threads of its own that
/// yield the cores to small edits: a higher nice value and, on Linux 6.12
/// and later, a long time slice, so that any thread with the default slice
/// that wakes preempts them at once (EEVDF's PREEMPT_SHORT).
@Suite("automerge serve: bulk threads")
struct ServeBulkThreadsTests {
    @Test("the bulk threads run at --bulk-nice with 50 ms slices; no other thread does")
    func bulkThreadsYield() async throws {
        #if os(Linux)
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("serve-bulk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: store) }
        let server = Process()
        server.executableURL = try #require(AutomergeExecutable.url)
        server.arguments = ["serve", "--port", "0", "--store", store.path, "--bulk-threads", "3", "--bulk-nice", "7"]
        let output = Pipe()
        server.standardOutput = output
        (server.standardInput, server.standardError) = (FileHandle.nullDevice, FileHandle.nullDevice)
        try server.run()
        defer { if server.isRunning { server.terminate() } }
        _ = try await firstLine(of: output)

        let threads = try Self.threads(of: server.processIdentifier)
        let bulk = threads.filter { $0.prio == 127 }
        #expect(bulk.count == 3, "\(threads)")
        let others = threads.filter { $0.prio != 127 }
        #expect(others.allSatisfy { $0.prio <= 120 }, "\(threads)")
        if Self.kernelReadsSlices {
            #expect(bulk.allSatisfy { $0.slice == 50_000_000 }, "\(bulk)")
            #expect(!others.contains { $0.slice == 50_000_000 }, "\(threads)")
        }
        #endif
    }

    struct Scheduling: CustomStringConvertible {
        let prio: Int
        let slice: Int?
        var description: String { "prio \(prio) slice \(slice.map(String.init) ?? "-")" }
    }

    /// Each thread's priority (120 + nice) and EEVDF slice, from /proc.
    static func threads(of pid: Int32) throws -> [Scheduling] {
        let tasks = "/proc/\(pid)/task"
        return try FileManager.default.contentsOfDirectory(atPath: tasks).map { tid in
            let text = try String(contentsOfFile: "\(tasks)/\(tid)/sched", encoding: .utf8)
            func field(_ name: String) -> Int? {
                text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
                    .flatMap { $0.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }
            }
            return Scheduling(prio: field("prio") ?? -1, slice: field("se.slice"))
        }
    }

    /// Whether this kernel takes a normal thread's slice from sched_setattr (Linux 6.12 and later).
    static var kernelReadsSlices: Bool {
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let parts = release.split(separator: ".").prefix(2).compactMap { Int($0.prefix { $0.isNumber }) }
        guard parts.count == 2 else { return false }
        return (parts[0], parts[1]) >= (6, 12)
    }
}
