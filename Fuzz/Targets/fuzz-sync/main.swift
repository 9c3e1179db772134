import AutomergeFuzzing
import CLibFuzzer
import Foundation

/// The `sync` target (see Fuzz/README.md): one input in, a crash when an invariant breaks.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    do { try FuzzTarget.sync.run(data) } catch { fatalError("sync: \(error)") }
    return 0
}

/// libFuzzer's mutations, then (for 7 in 8 mutations) valid checksums for the
/// chunks in the message's change entries (after the two selector bytes), so
/// that mutated changes and documents reach the decoders.
@_cdecl("LLVMFuzzerCustomMutator")
public func customMutator(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    let newSize = LLVMFuzzerMutate(data, size, maxSize)
    if seed % 8 != 0, let data { ChecksumRepair.repairSyncMessage(UnsafeMutableBufferPointer(start: data, count: newSize), at: 2) }
    return newSize
}

// SwiftPM links an executable's `main` under its own name, so this file
// owns `main` and hands control to libFuzzer's driver.
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOneInput))
