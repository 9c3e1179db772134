/// A change the document has applied, with what history queries need:
/// fixed-size, its variable parts kept by the ``ChangeGraph`` that holds it
/// (``ChangeGraph/bytes(of:)``, ``ChangeGraph/message(of:)``,
/// ``ChangeGraph/extraBytes(of:)``, ``ChangeGraph/dependencyIndices(of:)``).
///
/// With its bytes, dependencies and message as arrays and a string, each
/// change of a long history was four more heap blocks (their headers and
/// the allocator's rounding about 150 bytes a change, 262k changes' worth
/// of small blocks scattered between what a load frees).
struct ChangeRecord: Sendable {
    let hash: ChangeHash
    let actor: UInt32
    /// Where the change's bytes are in the graph's byte store: the
    /// uncompressed change chunk, then its message's UTF-8, then its extra bytes.
    let location: ChangeByteStore.Location
    let byteCount: UInt32
    /// The length of the message's UTF-8, or ``noMessage``.
    let messageByteCount: UInt32
    let extraByteCount: UInt32
    /// The dependencies: `dependencyCount` record indices from
    /// `dependencyStart` in the graph's dependency list.
    let dependencyStart: UInt32
    let dependencyCount: UInt32
    let sequence: UInt64
    let startOp: UInt64
    /// The counter of the last op (startOp - 1 for an empty change).
    let maxOp: UInt64
    let time: Int64

    /// ``messageByteCount`` of a change without a message.
    static let noMessage = UInt32.max

    /// How many ops the change has.
    var opCount: Int { maxOp >= startOp ? Int(clamping: maxOp - startOp + 1) : 0 }
}

/// A change as it is added to a ``ChangeGraph``, which keeps it as a
/// ``ChangeRecord``.
struct ChangeEntry {
    let hash: ChangeHash
    let actor: UInt32
    let sequence: UInt64
    let startOp: UInt64
    /// The counter of the last op (startOp - 1 for an empty change).
    let maxOp: UInt64
    let time: Int64
    let message: String?
    /// The dependencies, as indices of earlier records.
    let dependencyIndices: ArraySlice<Int>
    let extraBytes: [UInt8]
    /// The uncompressed change chunk.
    let bytes: Bytes

    /// Where a change's chunk is.
    enum Bytes {
        /// In this array: the history adds it, its message and its extra bytes to its store.
        case chunk([UInt8])
        /// Already in the history's store at `location`, followed by its
        /// message and its extra bytes (a load's rebuilt changes, see
        /// ``ChangeGraph/addLoaded(count:hash:heads:bytes:entry:)``).
        case stored(ChangeByteStore.Location, byteCount: Int)
    }
}
