import ArgumentParser
import Foundation

/// The documents a benchmark loads: shapes of ``DocumentShape`` or files
/// named on the command line, or every shape and `../shared/docs`.
struct BenchDocuments: ParsableArguments {
    @Argument(help: "Shapes (\(DocumentShape.allCases.map(\.rawValue).joined(separator: ", "))) or files; all shapes and ../shared/docs when none is named.")
    var inputs: [String] = []

    /// The documents to load: named shapes and files, or every shape and `../shared/docs`.
    func files() throws -> [(String, URL)] {
        if !inputs.isEmpty {
            return try inputs.map { input in
                if let shape = DocumentShape(rawValue: input) { return ("\(input): \(shape.summary)", try shape.file()) }
                return (input, URL(fileURLWithPath: input))
            }
        }
        var files = try DocumentShape.allCases.map { ("\($0.rawValue): \($0.summary)", try $0.file()) }
        let docs = sharedFile("docs")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []
        for name in names.sorted() where name.hasSuffix(".automerge") {
            files.append(("docs/\(name)", docs.appendingPathComponent(name)))
        }
        return files
    }
}
