// automerge-memory-probe FILE
//
// Loads one document and prints the process's resident memory before and
// after, for `automerge bench memory`. It is its own executable so that the
// process holds the library and nothing else: the CLI links Foundation (with
// ICU) and the argument parser, which the document's footprint should not be
// charged with. What the library links is what a server using it pays.

import Automerge
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc

@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32
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

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    print("usage: automerge-memory-probe FILE")
    exit(2)
}
do {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: arguments[1]))
    let before = residentMegabytes()
    let document = try Document(bytes)
    let after = residentMegabytes()
    // What the document itself keeps: the heap that loading used and freed
    // goes back to the system (glibc keeps it otherwise).
    #if canImport(Glibc)
    _ = glibcMallocTrim(0)
    #endif
    let kept = residentMegabytes()
    print("resident \(megabytes(after)) after load, \(megabytes(kept)) once freed memory is returned "
        + "(\(megabytes(before)) before it; \(document.heads().count) heads)")
} catch {
    print("error: \(error)")
    exit(1)
}
