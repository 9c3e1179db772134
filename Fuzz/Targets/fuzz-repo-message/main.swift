import AutomergeFuzzing
import CLibFuzzer
import Foundation

/// The `repo-message` target (see Fuzz/README.md): one input in, a crash when an invariant breaks.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    do { try FuzzTarget.repoMessage.run(data) } catch { fatalError("repo-message: \(error)") }
    return 0
}

// SwiftPM links an executable's `main` under its own name, so this file
// owns `main` and hands control to libFuzzer's driver.
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOneInput))
