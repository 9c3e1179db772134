import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file the tools could not read or write, said in one plain line:
/// `cannot read 'x.automerge': no such file`.
public struct FileAccessError: Error, Equatable, CustomStringConvertible, Sendable {
    /// What was being done to the file.
    public enum Operation: String, Sendable {
        case read, write
        case createDirectory = "create directory"
        case remove
        /// Read or write, when the error does not say which.
        case access
    }

    public var operation: Operation
    public var path: String
    /// What went wrong, in a few words: "no such file", "is a directory", ...
    public var problem: String

    public init(_ operation: Operation, _ path: String, problem: String) {
        self.operation = operation
        self.path = path
        self.problem = problem
    }

    /// The error Foundation threw while doing `operation` to `path`, in plain words.
    public init(_ operation: Operation, _ path: String, _ error: any Error) {
        self.init(operation, path, problem: Self.problem(of: error, operation))
    }

    /// A Foundation file error that names its file (as `Data(contentsOf:)`
    /// and `Data.write(to:)` throw), in plain words; nil for any other error.
    public init?(_ error: any Error) {
        let info = (error as NSError).userInfo
        guard (error as NSError).domain == NSCocoaErrorDomain,
              let path = info[NSFilePathErrorKey] as? String ?? (info[NSURLErrorKey] as? URL)?.path else { return nil }
        let code = (error as NSError).code
        let operation: Operation = (256..<512).contains(code) ? .read : (512..<768).contains(code) ? .write : .access
        self.init(operation, path, error)
    }

    public var description: String { "cannot \(operation.rawValue) '\(path)': \(problem)" }

    static func problem(of error: any Error, _ operation: Operation) -> String {
        if let code = posixCode(of: error) { return problem(errno: code, operation) }
        switch (error as NSError).code {
        case CocoaError.fileNoSuchFile.rawValue, CocoaError.fileReadNoSuchFile.rawValue: return problem(errno: ENOENT, operation)
        case CocoaError.fileReadNoPermission.rawValue, CocoaError.fileWriteNoPermission.rawValue: return problem(errno: EACCES, operation)
        case CocoaError.fileWriteOutOfSpace.rawValue: return problem(errno: ENOSPC, operation)
        default: return (error as NSError).localizedDescription
        }
    }

    /// The POSIX error under a Foundation error, if it carries one.
    static func posixCode(of error: any Error) -> Int32? {
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain { return Int32(error.code) }
        return (error.userInfo[NSUnderlyingErrorKey] as? any Error).flatMap(posixCode(of:))
    }

    static func problem(errno code: Int32, _ operation: Operation) -> String {
        switch code {
        // Writing creates a missing file, so a missing path means a missing directory.
        case ENOENT: return operation == .write || operation == .createDirectory ? "no such directory" : "no such file"
        case EISDIR: return "is a directory"
        case ENOTDIR: return "a parent is not a directory"
        case EACCES, EPERM: return "permission denied"
        case EROFS: return "read-only file system"
        case ENOSPC: return "no space left on device"
        default:
            let text = String(cString: strerror(code))
            return text.prefix(1).lowercased() + text.dropFirst()
        }
    }
}

/// Whole-file reads and writes for the command line and the conformance
/// runner, failing with a ``FileAccessError`` a person can read.
public enum FileAccess {
    /// The bytes of the regular file at `path` (symbolic links followed).
    /// Devices and pipes are refused: they can be endless, and a read of
    /// `/dev/zero` would allocate until the process dies.
    public static func read(_ path: String) throws(FileAccessError) -> Data {
        var info = stat()
        guard stat(path, &info) == 0 else { throw FileAccessError(.read, path, problem: FileAccessError.problem(errno: errno, .read)) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw FileAccessError(.read, path, problem: "is a directory")
        default: throw FileAccessError(.read, path, problem: "not a regular file")
        }
        do { return try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw FileAccessError(.read, path, error)
        }
    }

    /// Writes `data` to `path` (in place, so that `/dev/stdout` works too).
    public static func write(_ data: Data, to path: String) throws(FileAccessError) {
        do { try data.write(to: URL(fileURLWithPath: path)) } catch {
            throw FileAccessError(.write, path, error)
        }
    }

    /// Creates the directory `path` and any missing parents.
    public static func createDirectory(_ path: String) throws(FileAccessError) {
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
            throw FileAccessError(.createDirectory, path, error)
        }
    }

    /// Removes the file or directory tree at `path` if there is one.
    public static func removeIfPresent(_ path: String) throws(FileAccessError) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        do { try FileManager.default.removeItem(atPath: path) } catch {
            throw FileAccessError(.remove, path, error)
        }
    }
}
