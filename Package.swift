// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "swift-automerge",
    // macOS 14 / iOS 17 / tvOS 17: Hummingbird's floor (AutomergeRepo's WebSocket server and client); docs/decisions.md.
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17)],
    products: [
        // As in automerge-swift 0.6.1, one product holds both modules: the
        // document (`import Automerge`) and its utilities (`import
        // AutomergeUtilities`: walk(), isEmpty(), equivalentContents(_:), schema()).
        .library(name: "Automerge", targets: ["Automerge", "AutomergeUtilities"]),
        // A Cloudant-Sync-style datastore of Automerge documents on SQLite (GRDB).
        .library(name: "AutomergeStore", targets: ["AutomergeStore"]),
        .library(name: "AutomergeConformance", targets: ["AutomergeConformance"]),
        // A peer of the automerge-repo network: WebSocket client and sync server on AutomergeStore.
        .library(name: "AutomergeRepo", targets: ["AutomergeRepo"]),
        // The automerge-repo network's wire forms and messages: CBOR, bs58check, document ids, `automerge:` URLs.
        .library(name: "AutomergeRepoProtocol", targets: ["AutomergeRepoProtocol"]),
        // What each fuzz target does with its input; used by Fuzz/Package.swift and the corpus replay test.
        .library(name: "AutomergeFuzzing", targets: ["AutomergeFuzzing"]),
        .executable(name: "automerge", targets: ["AutomergeCLI"]),
        .executable(name: "automerge-memory-probe", targets: ["AutomergeMemoryProbe"]),
        // The benchmarks (docs/performance.md), apart from the `automerge` command.
        .executable(name: "automerge-bench", targets: ["AutomergeBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // `swift package generate-documentation`: the DocC catalogs in Sources/*/*.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // AutomergeRepo's WebSocket server (Hummingbird) and client (WSClient), and SIGTERM handling.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        .systemLibrary(name: "CSystemHeap", path: "Sources/CSystemHeap"),
        .systemLibrary(name: "CThreadScheduling", path: "Sources/CThreadScheduling"),
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
                // The write-ahead log's commit hook (WALCheckpointer.swift).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(name: "AutomergeRepoProtocol", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        .target(
            name: "AutomergeRepo",
            dependencies: [
                "Automerge",
                "AutomergeRepoProtocol",
                "AutomergeStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "AutomergeConformance",
            dependencies: ["Automerge", "StrictJSON", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "AutomergeFuzzing",
            dependencies: ["Automerge", "AutomergeConformance", "AutomergeRepoProtocol", .product(name: "Crypto", package: "swift-crypto")],
            path: "Fuzz/AutomergeFuzzing"
        ),
        // Loads one document in a process holding only the library, for `automerge bench memory`.
        .executableTarget(name: "AutomergeMemoryProbe", dependencies: ["Automerge", "CSystemHeap"]),
        // What the `automerge` and `automerge-bench` commands share.
        .target(
            name: "AutomergeCommandSupport",
            dependencies: [.product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(
            name: "AutomergeCLI",
            dependencies: [
                "AutomergeCommandSupport",
                "CThreadScheduling",
                "Automerge",
                "AutomergeConformance",
                "AutomergeStore",
                "AutomergeRepo",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `swift run -c release automerge-bench`: the benchmarks, apart from the shipped `automerge`.
        .executableTarget(
            name: "AutomergeBench",
            dependencies: [
                "AutomergeCommandSupport",
                "Automerge",
                "AutomergeConformance",
                "AutomergeStore",
                "AutomergeRepo",
                .product(name: "GRDB", package: "GRDB.swift"),
                // Built with the benchmarks, which run them as processes beside themselves.
                "AutomergeCLI",
                "AutomergeMemoryProbe",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `serve --attack`: hostile WebSocket peers and raw sockets.
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What several test targets share: running the `automerge` executable, blocking work off the cooperative pool.
        .target(name: "AutomergeTestSupport", path: "Tests/TestSupport"),
        .testTarget(
            name: "AutomergeTests",
            dependencies: [
                "Automerge",
                "AutomergeTestSupport",
                "AutomergeConformance",
                "AutomergeFuzzing",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "AutomergeStoreTests",
            dependencies: [
                "Automerge", "AutomergeConformance", "AutomergeStore", "AutomergeTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "AutomergeRepoTests",
            dependencies: [
                "Automerge", "AutomergeConformance", "AutomergeRepo", "AutomergeRepoProtocol", "AutomergeStore",
                "AutomergeTestSupport",
                // A raw WebSocket peer for the loopback tests' malformed and oversized frames.
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        // Every declaration of automerge-swift 0.6.1, called as a client would; stops building when one drifts.
        .testTarget(name: "AutomergeCompatibilityTests", dependencies: ["Automerge", "AutomergeUtilities"]),
    ]
)
