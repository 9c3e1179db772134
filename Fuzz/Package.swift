// swift-tools-version:6.1
// The libFuzzer executables. Build them through scripts/fuzz.sh, which adds
// `-Xswiftc -sanitize=fuzzer,address`. Each `main.swift` defines
// `LLVMFuzzerTestOneInput` and passes it to libFuzzer's `LLVMFuzzerRunDriver`
// (SwiftPM links an executable's `main` under a module-specific name, so a
// `-parse-as-library` target that leaves `main` to libFuzzer fails to link).
// What each target does lives in the root package's `AutomergeFuzzing`
// library, which `swift test` also runs over Corpus/ without libFuzzer.
import PackageDescription

let targets = ["load", "changes", "decode", "ops", "sync", "repo-message"]

let package = Package(
    name: "AutomergeFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "swift-automerge", path: "..")],
    targets: [.target(name: "CLibFuzzer", path: "Targets/CLibFuzzer")] + targets.map { name in
        .executableTarget(
            name: "fuzz-\(name)",
            dependencies: ["CLibFuzzer", .product(name: "AutomergeFuzzing", package: "swift-automerge")],
            path: "Targets/fuzz-\(name)"
        )
    }
)
