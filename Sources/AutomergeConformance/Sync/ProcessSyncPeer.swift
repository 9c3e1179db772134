import Automerge
import Foundation

/// A peer in another process: `COMMAND sync-peer FILE|-`, driven through
/// the line protocol of ``SyncPeerProtocol``.
public final class ProcessSyncPeer: SyncPeer {
    public let name: String
    private let process = Process()
    private let input: FileHandle
    private let output: FileHandle
    private var buffer: [UInt8] = []
    private var finished = false

    /// Starts `command sync-peer FILE` (or `-` for an empty document).
    public init(name: String = "impl", command: String, file: String?) throws {
        // A peer that exits early must make writes fail, not kill the driver.
        signal(SIGPIPE, SIG_IGN)
        self.name = name
        let stdin = Pipe(), stdout = Pipe()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "\(command) sync-peer \"$0\"", file ?? "-"]
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        input = stdin.fileHandleForWriting
        output = stdout.fileHandleForReading
    }

    deinit { quit() }

    /// Asks the peer to quit and waits for its process to end.
    public func quit() {
        if !finished { _ = try? send("QUIT") }
        finished = true
        try? input.close()
        process.waitUntilExit()
    }

    /// Sends one command line and returns the answer line.
    @discardableResult
    public func send(_ line: String) throws -> String {
        guard !finished else { throw SyncPeerError.protocolViolation("the peer's process has ended") }
        do { try input.write(contentsOf: Data((line + "\n").utf8)) } catch {
            finished = true
            throw SyncPeerError.protocolViolation("the peer's process does not read its input: \(error)")
        }
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let answer = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return answer
            }
            let chunk = output.availableData
            if chunk.isEmpty {
                finished = true
                throw SyncPeerError.protocolViolation("the peer's process ended without answering \(line.prefix(40))")
            }
            buffer.append(contentsOf: chunk)
        }
    }

    private func expectOK(_ line: String) throws {
        let answer = try send(line)
        if answer == "OK" { return }
        if answer.hasPrefix("ERR unsupported") || answer == "ERR unknown command" { throw SyncPeerError.unsupported(line) }
        if answer.hasPrefix("ERR") { throw SyncPeerError.refused(String(answer.dropFirst(4))) }
        throw SyncPeerError.protocolViolation("expected OK to \(line.prefix(40)), got \(answer.prefix(80))")
    }

    private func hexAnswer(_ line: String) throws -> [UInt8] {
        let answer = try send(line)
        guard let bytes = Bytes.fromHex(Substring(answer)) else {
            throw SyncPeerError.protocolViolation("expected hex to \(line), got \(answer.prefix(80))")
        }
        return bytes
    }

    public func generate() throws -> [UInt8]? {
        let answer = try send("GEN")
        if answer == "NONE" { return nil }
        guard let bytes = Bytes.fromHex(Substring(answer)) else {
            throw SyncPeerError.protocolViolation("expected hex or NONE to GEN, got \(answer.prefix(80))")
        }
        return bytes
    }

    public func receive(_ message: [UInt8]) throws { try expectOK("RECV " + Bytes.hex(message)) }

    public func heads() throws -> [ChangeHash] {
        let answer = try send("HEADS")
        let words = answer.split(separator: " ")
        let heads = words.compactMap { ChangeHash(hexString: String($0)) }
        guard heads.count == words.count else { throw SyncPeerError.protocolViolation("HEADS answered \(answer.prefix(80))") }
        return heads
    }

    public func save() throws -> Data {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sync-peer-\(UUID().uuidString).automerge").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try expectOK("SAVE " + path)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    public func put(key: String, value: String) throws { try expectOK("PUT \(key) \(value)") }

    public func splice(key: String, position: Int, delete: Int, text: String) throws {
        try expectOK("SPLICE \(key) \(position) \(delete) \(text)")
    }

    public func resetState() throws { try expectOK("RESET") }
    public func encodeState() throws -> [UInt8] { try hexAnswer("ENCODESTATE") }
    public func decodeState(_ bytes: [UInt8]) throws { try expectOK("DECODESTATE " + Bytes.hex(bytes)) }
    public func setReadOnly(_ readOnly: Bool) throws { try expectOK("READONLY " + (readOnly ? "on" : "off")) }
}
