import ArgumentParser
import Automerge
import AutomergeConformance
import Foundation

/// `automerge-bench hostile`: each family of crafted inputs
/// (``HostileInputs``) beside its benign control, loaded in a fresh process
/// each, with the load's time and the process's peak memory.
///
/// Budgets: a crafted input loads in at most twice its control's time, and
/// every load stays within the memory guarantee (docs/hostile-input.md):
/// 64 MB, plus 64 bytes per input byte, plus (for most families) 1 KB per
/// op and change the input declares. Families whose inputs reach the
/// document by calls or a sync message rather than a load say so
/// (``HostileInputs/Delivery``); the probe delivers them that way.
struct HostileBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hostile", abstract: "Crafted inputs against their benign controls: load time and peak memory.")

    @Option(help: "Sizes as powers of two of the op count, comma-separated.") var sizes = "16,18"
    @Option(help: "Only the family with this name (see --list).") var family: String?
    @Option(help: "Runs per input (the median time and the largest peak are reported).") var runs = 3
    @Option(help: "Seconds after which a load is stopped and reported as a timeout.") var timeout = 120.0
    @Option(help: "The automerge-memory-probe to run (default: the one built beside this executable).") var probe: String?
    @Option(help: "Also write each generated input into this directory.") var keep: String?
    @Flag(help: "List the families and exit.") var list = false

    /// One measured load.
    struct Load {
        var milliseconds: Double
        var peakMegabytes: Double
        var outcome: String
        var timedOut = false
        /// The changes of the loaded document (0 if it was rejected).
        var changes: Int {
            guard outcome.hasPrefix("loaded ") else { return 0 }
            return Int(outcome.dropFirst(7).prefix { $0.isNumber }) ?? 0
        }
    }

    func run() throws {
        if list {
            for family in HostileInputs.families { print("\(family.name.padding(toLength: 14, withPad: " ", startingAt: 0)) \(family.summary)") }
            return
        }
        let exponents = sizes.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let families = try family.map { name in
            guard let found = HostileInputs.family(named: name) else { throw ValidationError("no family \(name) (see --list)") }
            return [found]
        } ?? HostileInputs.families
        print("family                 ops      bytes   crafted ms  peak MB   control ms  peak MB   time ratio  memory bound  verdict")
        print("(memory bound: 64 MB + 64 B per input byte + 1 KB per op and change; time budget: crafted <= 2x control)")
        var missed = 0
        for family in families {
            for exponent in exponents where (1...24).contains(exponent) {
                if try !report(family, ops: 1 << exponent) { missed += 1 }
            }
        }
        print(missed == 0 ? "every family within budget" : "\(missed) families over budget")
    }

    /// Generates, loads and prints one family at one size; false if over budget.
    func report(_ family: HostileInputs.Family, ops: Int) throws -> Bool {
        let crafted = try family.crafted(ops), control = try family.control(ops)
        let craftedLoad = try measure(crafted, name: "\(family.name)-\(ops)-crafted", delivery: family.delivery)
        let controlLoad = try measure(control, name: "\(family.name)-\(ops)-control", delivery: family.delivery)
        let bound = Self.memoryBound(bytes: crafted.count, rows: ops + craftedLoad.changes, bytesPerRow: family.bytesPerRow)
        let controlBound = Self.memoryBound(bytes: control.count, rows: ops + controlLoad.changes, bytesPerRow: family.bytesPerRow)
        let ratio = craftedLoad.milliseconds / max(controlLoad.milliseconds, 1)
        var problems: [String] = []
        if craftedLoad.timedOut { problems.append("timed out") }
        for load in [craftedLoad, controlLoad] where load.outcome.hasPrefix("crashed") { problems.append(load.outcome) }
        if ratio > 2 { problems.append("time") }
        if craftedLoad.peakMegabytes > bound || controlLoad.peakMegabytes > controlBound { problems.append("memory") }
        let rejected = craftedLoad.outcome.hasPrefix("rejected"), controlRejected = controlLoad.outcome.hasPrefix("rejected")
        if rejected != family.rejected || controlRejected != family.rejected {
            problems.append(family.rejected ? "not rejected" : "rejected: \(craftedLoad.outcome) / \(controlLoad.outcome)")
        }
        print(family.name.padding(toLength: 21, withPad: " ", startingAt: 0) + String(format: " %7d %10d %12.1f %8.1f %12.1f %8.1f %12.2f %11.0f MB  %@", ops, crafted.count,
                     craftedLoad.milliseconds, craftedLoad.peakMegabytes, controlLoad.milliseconds, controlLoad.peakMegabytes,
                     ratio, bound, (problems.isEmpty ? "met" : "MISSED (" + problems.joined(separator: ", ") + ")") as NSString))
        return problems.isEmpty
    }

    /// The guarantee, in MB, for an input of `bytes` declaring `rows` ops and changes.
    static func memoryBound(bytes: Int, rows: Int, bytesPerRow: Int) -> Double {
        64 + (64 * Double(bytes) + Double(bytesPerRow * rows)) / 1_048_576
    }

    /// Loads `bytes` in fresh probe processes: the median time and the largest peak of `runs` loads.
    func measure(_ bytes: [UInt8], name: String, delivery: HostileInputs.Delivery) throws -> Load {
        let directory = keep.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("\(name)-\(getpid()).automerge")
        // Delivered chunk by chunk, the chunks go framed (see automerge-memory-probe).
        try Data(delivery == .load ? bytes : Self.framed(bytes)).write(to: file)
        defer { if keep == nil { try? FileManager.default.removeItem(at: file) } }
        var loads: [Load] = []
        for _ in 0..<max(1, runs) {
            let load = try probeLoad(file.path, delivery: delivery)
            loads.append(load)
            if load.timedOut { break }
        }
        let times = loads.map(\.milliseconds).sorted()
        var result = loads[0]
        result.milliseconds = times[times.count / 2]
        result.peakMegabytes = loads.map(\.peakMegabytes).max() ?? 0
        result.timedOut = loads.contains { $0.timedOut }
        return result
    }

    /// Each chunk of `bytes` after its length, as 4 bytes big-endian.
    static func framed(_ bytes: [UInt8]) -> [UInt8] {
        var framed: [UInt8] = []
        for chunk in RawChunk.split(bytes) ?? [] {
            withUnsafeBytes(of: UInt32(chunk.bytes.count).bigEndian) { framed.append(contentsOf: $0) }
            framed.append(contentsOf: chunk.bytes)
        }
        return framed
    }

    /// One load in a fresh `automerge-memory-probe --load-stats` process.
    func probeLoad(_ path: String, delivery: HostileInputs.Delivery) throws -> Load {
        let executable = probe.map { URL(fileURLWithPath: $0) } ?? besideThisExecutable("automerge-memory-probe")
        let child = Process()
        child.executableURL = executable
        child.arguments = ["--load-stats", "--deliver", delivery.rawValue, path]
        let pipe = Pipe()
        child.standardOutput = pipe
        try child.run()
        let deadline = Date().addingTimeInterval(timeout)
        while child.isRunning && Date() < deadline { usleep(20_000) }
        if child.isRunning {
            child.terminate()
            child.waitUntilExit()
            return Load(milliseconds: timeout * 1000, peakMegabytes: 0, outcome: "timeout", timedOut: true)
        }
        let line = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard let stats = line.split(separator: "\n").first(where: { $0.hasPrefix("load-stats ") }) else {
            return Load(milliseconds: 0, peakMegabytes: 0, outcome: "crashed (status \(child.terminationStatus)): \(line)")
        }
        func field(_ name: String) -> Substring? {
            stats.split(separator: " ").first { $0.hasPrefix(name + "=") }?.dropFirst(name.count + 1)
        }
        let outcome = stats.range(of: "outcome=").map { String(stats[$0.upperBound...]) } ?? ""
        return Load(milliseconds: Double(field("ms") ?? "") ?? 0, peakMegabytes: Double(field("peak-mb") ?? "") ?? 0, outcome: outcome)
    }
}
