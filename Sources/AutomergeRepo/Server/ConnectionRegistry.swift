import NIOConcurrencyHelpers
import NIOCore

/// Every connection a server has accepted, from its first byte to its
/// close: what the caps on connections count, what a join marks, and what
/// a shutdown closes.
final class ConnectionRegistry: Sendable {
    private struct Entry {
        let channel: any Channel
        let address: String?
        let meter: InboundMeter
        var hasJoined = false
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        var perAddress: [String: Int] = [:]
        var isDraining = false
    }

    /// The most connections open at once.
    let maximumConnections: Int
    /// The most connections open at once from one IP address.
    let maximumConnectionsPerAddress: Int
    private let state = NIOLockedValueBox(State())

    init(maximumConnections: Int, maximumConnectionsPerAddress: Int) {
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
    }

    /// Why a connection was not admitted.
    enum Refusal: Equatable, CustomStringConvertible {
        case draining, tooManyConnections, tooManyFromAddress(String)

        var description: String {
            switch self {
            case .draining: "the server is shutting down"
            case .tooManyConnections: "the server has its most connections open"
            case .tooManyFromAddress(let address): "\(address) has its most connections open"
            }
        }
    }

    /// Counts `channel`, whose gate counts its bytes into `meter`, in; or says why it may not be.
    func admit(_ channel: any Channel, meter: InboundMeter) -> Refusal? {
        let address = channel.remoteAddress?.ipAddress
        return state.withLockedValue { state -> Refusal? in
            if state.isDraining { return .draining }
            guard state.entries.count < maximumConnections else { return .tooManyConnections }
            if let address {
                guard state.perAddress[address, default: 0] < maximumConnectionsPerAddress else {
                    return .tooManyFromAddress(address)
                }
                state.perAddress[address, default: 0] += 1
            }
            state.entries[ObjectIdentifier(channel)] = Entry(channel: channel, address: address, meter: meter)
            return nil
        }
    }

    /// `channel` closed.
    func remove(_ channel: any Channel) {
        state.withLockedValue { state in
            guard let entry = state.entries.removeValue(forKey: ObjectIdentifier(channel)) else { return }
            if let address = entry.address {
                state.perAddress[address, default: 1] -= 1
                if state.perAddress[address] == 0 { state.perAddress[address] = nil }
            }
        }
    }

    /// `channel`'s peer joined: its handshake is done.
    func markJoined(_ channel: any Channel) {
        state.withLockedValue { $0.entries[ObjectIdentifier(channel)]?.hasJoined = true }
    }

    /// What `channel`'s gate counts its received bytes into, while it is open.
    func meter(of channel: any Channel) -> InboundMeter? {
        state.withLockedValue { $0.entries[ObjectIdentifier(channel)]?.meter }
    }

    /// Whether `channel`'s peer has joined.
    func hasJoined(_ channel: any Channel) -> Bool {
        state.withLockedValue { $0.entries[ObjectIdentifier(channel)]?.hasJoined ?? false }
    }

    /// The connections open now.
    var count: Int { state.withLockedValue { $0.entries.count } }

    /// Admits nothing more and closes every connection whose peer has not
    /// joined (half-sent upgrades, sockets that sent nothing): a shutdown
    /// must not wait for them.
    func drain() {
        let unjoined = state.withLockedValue { state -> [any Channel] in
            state.isDraining = true
            return state.entries.values.filter { !$0.hasJoined }.map(\.channel)
        }
        for channel in unjoined { channel.close(promise: nil) }
    }

    /// Closes every connection still open (the end of a shutdown's grace period).
    func closeAll() {
        for channel in state.withLockedValue({ $0.entries.values.map(\.channel) }) { channel.close(promise: nil) }
    }
}
