import Foundation

/// How much the encoder reports while it works.
public enum LogVerbosity: Int, Comparable, Sendable {
    /// Errors only (the default).
    case errorOnly = 3
    /// Also schema creation and deletions.
    case debug = 6
    /// Also every value written.
    case tracing = 8

    /// Whether `lhs` reports less than `rhs`.
    public static func < (lhs: LogVerbosity, rhs: LogVerbosity) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

/// Writes encoder reports to standard error when the level asks for them.
struct CodableLog: Sendable {
    let level: LogVerbosity

    /// Reports `message` if the level is at least `.debug`.
    func debug(_ message: @autoclosure () -> String) {
        if level >= .debug { emit(message()) }
    }

    /// Reports `message` if the level is `.tracing`.
    func trace(_ message: @autoclosure () -> String) {
        if level >= .tracing { emit(message()) }
    }

    private func emit(_ message: String) {
        FileHandle.standardError.write(Data("[AutomergeEncoder] \(message)\n".utf8))
    }
}
