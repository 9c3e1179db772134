import AutomergeTestSupport
import Foundation

/// Reads `pipe` (a child's standard output) up to its first newline: the
/// `listening PORT` line `automerge serve` prints first.
func firstLine(of pipe: Pipe) async throws -> String {
    try await blockingWork {
        var bytes = [UInt8]()
        while !bytes.contains(UInt8(ascii: "\n")) {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            bytes += chunk
        }
        return String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }
}

/// The port in `line` when it is `listening PORT`.
func listeningPort(_ line: String) -> Int? {
    line.hasPrefix("listening ") ? Int(line.dropFirst("listening ".count)) : nil
}
