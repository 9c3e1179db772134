// automerge-memory-probe FILE
// automerge-memory-probe --load-stats [--deliver load|calls|sync] FILE
// automerge-memory-probe --breakdown FILE
//
// Loads one document and prints the process's resident memory before and
// after, and how much of the growth is anonymous (heap) and file (code)
// pages, for `automerge-bench memory`; with --load-stats, one line with the
// load's time, the process's peak resident memory and whether the load
// succeeded, for `automerge-bench hostile` (with --deliver calls or sync,
// FILE holds chunks each after its length as 4 bytes big-endian, applied
// one `applyEncodedChanges` call each, or received in one sync message, by
// an empty document); with --breakdown, the
// document's main structures too (Document.memoryBreakdown), the
// allocator's figures, and which mapped files the file pages grew in. It is its own executable so that the
// process holds the library and nothing else: the CLI links Foundation (with
// ICU) and the argument parser, which the document's footprint should not be
// charged with. What the library links is what a server using it pays.

@_spi(Conformance) @_spi(Storage) import Automerge
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import CSystemHeap
import Glibc
#endif

/// Current resident memory in MB, from /proc (0 where unavailable).
func residentMegabytes() -> Double {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

func megabytes(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10) MB"
}

/// The fields `names` (such as `VmHWM:`) of /proc/self/status, read
/// once, in MB (0 for a field or a file that is not there).
func statusMegabytes(_ names: String...) -> [Double] {
    let lines = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8))?.split(separator: "\n") ?? []
    return names.map { name in
        guard let line = lines.first(where: { $0.hasPrefix(name) }),
              let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes / 1024
    }
}

/// The process's peak resident memory in MB.
func peakResidentMegabytes() -> Double { statusMegabytes("VmHWM:")[0] }

/// Resident memory in MB split as /proc reports it: anonymous pages (the
/// heap and stacks) and file pages (code and mapped files).
func residentParts() -> (anonymous: Double, file: Double) {
    let parts = statusMegabytes("RssAnon:", "RssFile:")
    return (parts[0], parts[1])
}

/// Resident KB of each mapped file (code and data of the executable and
/// its libraries), from /proc/self/smaps.
func residentKilobytesByFile() -> [String: Int] {
    guard let smaps = try? String(contentsOfFile: "/proc/self/smaps", encoding: .utf8) else { return [:] }
    var byFile: [String: Int] = [:]
    var file: String?
    for line in smaps.split(separator: "\n") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        if let first = fields.first, first.contains("-"), fields.count >= 5 {
            file = fields.count > 5 && fields[5].hasPrefix("/") ? String(fields[5]) : nil
        } else if let file, fields.first == "Rss:", fields.count > 1, let kilobytes = Int(fields[1]) {
            byFile[file, default: 0] += kilobytes
        }
    }
    return byFile
}

let arguments = CommandLine.arguments
/// The chunks of a framed file: each after its length, 4 bytes big-endian.
func framedChunks(_ bytes: Data) -> [Data] {
    var chunks: [Data] = []
    var offset = bytes.startIndex
    while offset + 4 <= bytes.endIndex {
        let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        offset += 4
        guard offset + length <= bytes.endIndex else { break }
        chunks.append(bytes[offset..<offset + length])
        offset += length
    }
    return chunks
}

/// A document that received `bytes` as `delivery` names.
func deliver(_ bytes: Data, _ delivery: String) throws -> Document {
    switch delivery {
    case "calls":
        let document = Document()
        for chunk in framedChunks(bytes) { try document.applyEncodedChanges(encoded: chunk) }
        return document
    case "sync":
        let document = Document()
        let message = SyncMessage(changes: framedChunks(bytes).map { [UInt8]($0) })
        try document.receiveSyncMessage(state: SyncState(), message: message.encode())
        return document
    default:
        return try Document(bytes)
    }
}

if arguments.count >= 3, arguments[1] == "--load-stats" {
    let delivery = arguments.count == 5 && arguments[2] == "--deliver" ? arguments[3] : "load"
    guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: arguments[arguments.count - 1])) else {
        print("error: cannot read \(arguments[arguments.count - 1])")
        exit(2)
    }
    var outcome = ""
    let elapsed = ContinuousClock().measure {
        do {
            outcome = "loaded \(try deliver(bytes, delivery).getHistory().count) changes"
        } catch {
            outcome = "rejected: \(error)"
        }
    }
    let milliseconds = Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
    print("load-stats ms=\(milliseconds) peak-mb=\(peakResidentMegabytes()) outcome=\(outcome)")
    exit(0)
}
let breakdown = arguments.count == 3 && arguments[1] == "--breakdown"
guard arguments.count == 2 || breakdown else {
    print("usage: automerge-memory-probe [--load-stats | --breakdown] FILE")
    exit(2)
}
do {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: arguments[arguments.count - 1]))
    let before = residentMegabytes()
    let partsBefore = residentParts()
    let filesBefore = breakdown ? residentKilobytesByFile() : [:]
    #if canImport(Glibc)
    if breakdown { malloc_stats() }  // the heap before, to compare with the one after
    #endif
    let document = try Document(bytes)
    let after = residentMegabytes()
    // What the document itself keeps: the heap that loading used and freed
    // goes back to the system (glibc keeps it otherwise).
    #if canImport(Glibc)
    _ = malloc_trim(0)
    #endif
    let kept = residentMegabytes()
    print("resident \(megabytes(after)) after load, \(megabytes(kept)) once freed memory is returned "
        + "(\(megabytes(before)) before it; \(document.heads().count) heads; peak \(megabytes(peakResidentMegabytes())); "
        + "\(document.opCountOfChanges) ops)")
    let partsAfter = residentParts()
    print("  of the growth: anonymous \(megabytes(partsAfter.anonymous - partsBefore.anonymous)), "
        + "file (code) \(megabytes(partsAfter.file - partsBefore.file))")
    if breakdown {
        // The allocator's own figures (to stderr): heap in use against the
        // heap it holds tells live data from fragmentation.
        #if canImport(Glibc)
        malloc_stats()
        #endif
        let fileGrowth = residentKilobytesByFile().map { ($0.key, $0.value - filesBefore[$0.key, default: 0]) }
        for (file, kilobytes) in fileGrowth.sorted(by: { $0.1 > $1.1 }).prefix(6) where kilobytes > 0 {
            print("    \(file.split(separator: "/").last ?? ""): \(megabytes(Double(kilobytes) / 1024))")
        }
        for (part, bytes) in document.memoryBreakdown() { print("  \(part): \(megabytes(Double(bytes) / 1_048_576))") }
        print("  the caches' estimate (approximateMemoryFootprint): \(megabytes(Double(document.approximateMemoryFootprint) / 1_048_576))")
    }
    // Alive to the end, so that a heap profiler (heaptrack) run on the probe
    // reports what the document holds as not freed, by allocation site.
    exit(withExtendedLifetime(document) { 0 })
} catch {
    print("error: \(error)")
    exit(1)
}
