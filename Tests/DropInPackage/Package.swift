// swift-tools-version:5.9
// A package written against automerge-swift 0.6.1 as its users write one:
// one dependency, the one product `Automerge`, which brings the
// `AutomergeUtilities` module with it. scripts/check-drop-in.sh builds it
// against this repository, checked out under automerge-swift's name.
import PackageDescription

let package = Package(
    name: "NotesCLI",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [
        .package(path: "../automerge-swift"),
    ],
    targets: [
        .executableTarget(
            name: "NotesCLI",
            dependencies: [.product(name: "Automerge", package: "automerge-swift")]
        ),
    ]
)
