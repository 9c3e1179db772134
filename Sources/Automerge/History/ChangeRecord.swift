/// A change the document has applied, with what history queries need.
struct ChangeRecord: Sendable {
    let hash: ChangeHash
    let actor: UInt32
    let sequence: UInt64
    let startOp: UInt64
    /// The counter of the last op (startOp - 1 for an empty change).
    let maxOp: UInt64
    let time: Int64
    let message: String?
    /// The dependencies, as indices of earlier records
    /// (``ChangeGraph/dependencies(of:)`` gives their hashes: an array of
    /// them as well was 80 bytes a change).
    let dependencyIndices: [Int]
    let extraBytes: [UInt8]
    /// The uncompressed change chunk.
    let bytes: [UInt8]
}
