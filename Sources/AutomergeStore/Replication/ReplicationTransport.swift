import Foundation

/// A connection between two replicating datastores: it carries
/// ``ReplicationFrame``s each way, reliably and in order when it works.
/// Frames carry their own serial numbers, so a transport that loses,
/// repeats or reorders one makes the replication fail with
/// ``ReplicationError/outOfOrder(expected:received:)`` instead of diverging;
/// a later replication over a working transport converges.
///
/// Two come with the package: ``InProcessTransport`` (two datastores in
/// one program) and ``ByteStreamTransport`` (pipes, a child process's
/// standard input and output, a socket).
public protocol ReplicationTransport: Sendable {
    /// Sends one frame. Throws when the connection is gone.
    func send(_ frame: ReplicationFrame) async throws
    /// The next frame from the peer; nil once the peer has closed the
    /// connection and every frame it sent was received.
    func receive() async throws -> ReplicationFrame?
    /// Closes the connection: the peer receives what was sent, then nil.
    func close() async
}

/// Two ends of a connection inside one process: what one end sends, the
/// other receives, in order.
public final class InProcessTransport: ReplicationTransport {
    private let inbox: AsyncQueue<ReplicationFrame>
    private let outbox: AsyncQueue<ReplicationFrame>

    private init(inbox: AsyncQueue<ReplicationFrame>, outbox: AsyncQueue<ReplicationFrame>) {
        self.inbox = inbox
        self.outbox = outbox
    }

    /// A connected pair of ends.
    public static func pair() -> (InProcessTransport, InProcessTransport) {
        let one = AsyncQueue<ReplicationFrame>(), other = AsyncQueue<ReplicationFrame>()
        return (InProcessTransport(inbox: one, outbox: other), InProcessTransport(inbox: other, outbox: one))
    }

    public func send(_ frame: ReplicationFrame) async throws { outbox.push(frame) }

    public func receive() async throws -> ReplicationFrame? { try await inbox.next() }

    public func close() async {
        outbox.finish()
        inbox.finish()
    }
}
