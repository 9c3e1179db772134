#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
        let line = Array("[AutomergeEncoder] \(message)\n".utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
