import HummingbirdWebSocket
import NIOConcurrencyHelpers
import NIOCore

/// One WebSocket connection of a ``RepoServer`` once upgraded: a reader
/// that takes frames off the socket as they come, whatever the hub is
/// doing (so that the peer's pongs and pings are handled, and the gate's
/// deadlines see progress), a handler that passes whole messages to the
/// hub one at a time, in order, and a writer that drains the outbox.
///
/// The connection ends when the peer closes it, the hub closes it (its
/// outbox closes once its last message is queued), or the gate closes
/// the socket.
struct ConnectionSession {
    let hub: RepoHub
    let channel: any Channel
    let meter: InboundMeter
    let outbox: Outbox
    let maximumMessageSize: Int
    /// The largest ephemeral message relayed: larger ones are dropped as they arrive.
    let maximumEphemeralSize: Int

    /// Serves the connection until it ends.
    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        let id = await hub.connect(outbox: outbox, channel: channel)
        let (messages, queue) = AsyncStream.makeStream(of: InboundMessage.self)
        let backlog = Backlog()
        await withTaskGroup(of: Part.self) { group in
            group.addTask {
                await outbox.drain(into: outbound)
                return .writer
            }
            group.addTask {
                await read(inbound, from: id, into: queue, backlog: backlog)
                queue.finish()
                return .reader
            }
            group.addTask {
                await handle(messages, from: id, backlog: backlog)
                return .handler
            }
            while let part = await group.next() {
                switch part {
                case .reader:
                    continue  // the handler goes on with what was read before the peer closed
                case .handler:
                    // Done, or the hub closed the outbox after its last word: the writer ends once it is written.
                    await hub.disconnect(id)
                case .writer:
                    // Nothing more can be written: the hub is done with the connection, or the socket closed.
                    group.cancelAll()
                    queue.finish()
                }
            }
            await hub.disconnect(id)
            if outbox.hasOverflowed { channel.close(promise: nil) }  // the peer does not read: no close handshake
        }
    }

    private enum Part {
        case reader, handler, writer
    }

    /// A whole message from the peer, or a text frame (which the protocol does not use).
    enum InboundMessage: Sendable {
        case binary([UInt8])
        case text
    }

    /// How many messages are read and not yet handled, and whether one is half read.
    final class Backlog: Sendable {
        private let state = NIOLockedValueBox((queued: 0, partial: false))
        func queued() { state.withLockedValue { $0.queued += 1 } }
        func handled() { state.withLockedValue { $0.queued -= 1 } }
        func partial(_ value: Bool) { state.withLockedValue { $0.partial = value } }
        var isIdle: Bool { state.withLockedValue { $0.queued == 0 && !$0.partial } }
    }

    private func read(_ inbound: WebSocketInboundStream, from id: ConnectionId,
                      into queue: AsyncStream<InboundMessage>.Continuation, backlog: Backlog) async
    {
        var assembler = MessageAssembler(maximumSize: maximumMessageSize, maximumEphemeralSize: maximumEphemeralSize)
        do {
            for try await frame in inbound {
                guard let completed = try assembler.add(frame) else {
                    backlog.partial(true)
                    continue
                }
                backlog.partial(false)
                meter.messageCompleted()
                switch completed {
                case .droppedEphemeral(let size):
                    meter.handled(size, idle: backlog.isIdle)
                    hub.droppedEphemeral(size: size, from: id)
                case .message(let message):
                    backlog.queued()
                    queue.yield(message)
                    if case .text = message { return }
                }
            }
        } catch let error as MessageAssembler.TooLarge {
            await hub.refuse(id, "\(error)")
        } catch {
            // The socket closed or broke (WSCore has answered protocol errors already).
        }
    }

    private func handle(_ messages: AsyncStream<InboundMessage>, from id: ConnectionId, backlog: Backlog) async {
        for await message in messages {
            switch message {
            case .text:
                _ = await hub.receive([], from: id)  // a text frame is malformed: refused like one
                backlog.handled()
                return
            case .binary(let bytes):
                let disposition = await hub.receive(bytes, from: id)
                backlog.handled()
                meter.handled(bytes.count, idle: backlog.isIdle)
                switch disposition {
                case .close: return
                case .keepReading: continue
                case .pause(let pause): try? await Task.sleep(for: pause)
                }
            }
        }
    }
}
