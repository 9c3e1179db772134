import Dispatch
import Logging

/// A failure a command reports in one line of its own words.
public struct CommandFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A logger that says only warnings and worse: a command's own output is what matters.
public func quietLogger(_ label: String) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = .warning
    return logger
}

/// Runs `body` on the concurrency pool and waits for it: commands are
/// synchronous (ArgumentParser's root command is), the repo and
/// replication APIs are async.
public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let result = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { result.value = .success(try await body()) } catch { result.value = .failure(error) }
        done.signal()
    }
    done.wait()
    return try result.value!.get()
}

/// The result of a ``runBlocking(_:)`` body.
private final class ResultBox<T>: @unchecked Sendable {
    // @unchecked: written once by the task before it signals, read once after the wait.
    var value: Result<T, any Error>?
}
