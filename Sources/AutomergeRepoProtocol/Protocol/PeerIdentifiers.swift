/// An opaque string id of the automerge-repo network, kept apart from ids of
/// other roles by its `Role` type: see ``PeerId`` and ``StorageId``.
///
/// automerge-repo treats these ids as strings it never looks into; so do we.
public struct RepoIdentifier<Role>: Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The id as it is written on the wire.
    public let rawValue: String

    /// The id `rawValue`.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// The id spelled by the literal.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The id as it is written on the wire.
    public var description: String { rawValue }

    /// Orders ids by their text, so that collections of them can be written in a fixed order.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The role of a ``PeerId``.
public enum PeerIdRole {}

/// The role of a ``StorageId``.
public enum StorageIdRole {}

/// The id a peer of the automerge-repo network goes by for the life of one
/// process (a browser tab, a server run): the `senderId` and `targetId` of
/// its messages.
public typealias PeerId = RepoIdentifier<PeerIdRole>

/// The id of a peer's persistent storage (an IndexedDB, a server's store):
/// many peer ids can advertise one storage id, and a storage id outlives
/// them, so it is what sync state is saved under. Sent in ``PeerMetadata``
/// and used as the keys of remote-heads gossip.
public typealias StorageId = RepoIdentifier<StorageIdRole>
