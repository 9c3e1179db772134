import Foundation
@testable import AutomergeStore

/// A transport end that misbehaves once, at its `at`-th frame sent: it
/// drops it, sends it twice, sends it after the next one, or cuts the
/// connection there.
final class FaultyTransport: ReplicationTransport, @unchecked Sendable {
    enum Fault: Int, CaseIterable, CustomStringConvertible {
        case none, drop, duplicate, reorder, cut
        var description: String { "\(["none", "drop", "duplicate", "reorder", "cut"][rawValue])" }
    }

    private let inner: InProcessTransport
    private let fault: Fault
    private let at: Int
    private let lock = NSLock()
    private var sent = 0
    private var delayed: ReplicationFrame?

    init(_ inner: InProcessTransport, fault: Fault, at: Int) {
        self.inner = inner
        self.fault = fault
        self.at = at
    }

    func send(_ frame: ReplicationFrame) async throws {
        let (index, held) = lock.withLock { () -> (Int, ReplicationFrame?) in
            defer { sent += 1 }
            defer { delayed = nil }
            return (sent, delayed)
        }
        guard index == at else {
            try await inner.send(frame)
            if let held { try await inner.send(held) }
            return
        }
        switch fault {
        case .none: try await inner.send(frame)
        case .drop: break
        case .duplicate:
            try await inner.send(frame)
            try await inner.send(frame)
        case .reorder: lock.withLock { delayed = frame }
        case .cut:
            await inner.close()
            throw ReplicationError.connectionLost("cut by the test")
        }
    }

    func receive() async throws -> ReplicationFrame? { try await inner.receive() }

    func close() async {
        if let held = lock.withLock({ delayed }) { try? await inner.send(held) }
        await inner.close()
    }
}
