// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "swift-automerge",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "Automerge", targets: ["Automerge"]),
        // automerge-swift's utilities: walk(), isEmpty(), equivalentContents(_:), schema().
        .library(name: "AutomergeUtilities", targets: ["AutomergeUtilities"]),
        // A Cloudant-Sync-style datastore of Automerge documents on SQLite (GRDB).
        .library(name: "AutomergeStore", targets: ["AutomergeStore"]),
        .library(name: "AutomergeConformance", targets: ["AutomergeConformance"]),
        // The automerge-repo network's wire forms: CBOR, bs58check, document ids and `automerge:` URLs.
        .library(name: "AutomergeRepo", targets: ["AutomergeRepo"]),
        // What each fuzz target does with its input; used by Fuzz/Package.swift and the corpus replay test.
        .library(name: "AutomergeFuzzing", targets: ["AutomergeFuzzing"]),
        .executable(name: "automerge", targets: ["AutomergeCLI"]),
        .executable(name: "automerge-memory-probe", targets: ["AutomergeMemoryProbe"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // `swift package generate-documentation`: the DocC catalogs in Sources/*/*.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        .systemLibrary(name: "CSystemHeap", path: "Sources/CSystemHeap"),
        .target(
            name: "Automerge",
            dependencies: [
                "CZlib",
                "CSystemHeap",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        .target(name: "AutomergeUtilities", dependencies: ["Automerge"]),
        // One strict JSON reader and writer, shared by the harness and the datastore.
        .target(name: "StrictJSON"),
        .target(
            name: "AutomergeStore",
            dependencies: [
                "Automerge",
                "StrictJSON",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(name: "AutomergeRepo", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        .target(
            name: "AutomergeConformance",
            dependencies: ["Automerge", "StrictJSON", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "AutomergeFuzzing",
            dependencies: ["Automerge", "AutomergeConformance", .product(name: "Crypto", package: "swift-crypto")],
            path: "Fuzz/AutomergeFuzzing"
        ),
        // Loads one document in a process holding only the library, for `automerge bench memory`.
        .executableTarget(name: "AutomergeMemoryProbe", dependencies: ["Automerge", "CSystemHeap"]),
        .executableTarget(
            name: "AutomergeCLI",
            dependencies: [
                "Automerge",
                "AutomergeConformance",
                "AutomergeStore",
                .product(name: "GRDB", package: "GRDB.swift"),
                // Built with the CLI so that `swift run automerge bench` finds it beside itself.
                "AutomergeMemoryProbe",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "AutomergeTests",
            dependencies: [
                "Automerge",
                "AutomergeConformance",
                "AutomergeFuzzing",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "AutomergeStoreTests",
            dependencies: [
                "Automerge", "AutomergeConformance", "AutomergeStore", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "AutomergeRepoTests", dependencies: ["AutomergeRepo"]),
        // Every declaration of automerge-swift 0.6.1, called as a client would; stops building when one drifts.
        .testTarget(name: "AutomergeCompatibilityTests", dependencies: ["Automerge", "AutomergeUtilities"]),
    ]
)
