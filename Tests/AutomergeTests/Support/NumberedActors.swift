@testable import Automerge

extension ActorTable {
    /// A table of `count` actors whose bytes are their index, big-endian:
    /// actor index order is byte order, for tests that make op ids by hand.
    static func numbered(_ count: Int) -> ActorTable {
        var table = ActorTable()
        _ = table.intern(contentsOf: (0..<count).map { index in
            ActorId(uncheckedBytes: withUnsafeBytes(of: UInt32(index).bigEndian) { [UInt8]($0) })
        })
        return table
    }

    /// ``numbered(_:)`` with every actor index the sequence tree tests use
    /// (up to 70,000: past the 16 bits an element packs).
    static let forTreeTests = numbered(70_001)
}
