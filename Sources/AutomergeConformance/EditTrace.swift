import Foundation

/// An editing trace: text edits `[position, deleteCount, insertedText?]`
/// replayed against a text object (the automerge-paper trace format).
public struct EditTrace: Sendable {
    /// One edit: delete `deleteCount` characters at `position`, then insert `insert`.
    public struct Edit: Sendable {
        public let position: UInt64
        public let deleteCount: Int64
        public let insert: String
    }

    /// The edits in order.
    public let edits: [Edit]

    /// Reads a trace file.
    public init(contentsOf url: URL) throws {
        let json = try JSONParser.parse([UInt8](try Data(contentsOf: url)))
        guard case .array(let rows) = json else { throw TraceError.notAnArray }
        var edits: [Edit] = []
        edits.reserveCapacity(rows.count)
        for (index, row) in rows.enumerated() {
            guard case .array(let fields) = row, fields.count >= 2,
                  case .number(let position) = fields[0], let pos = UInt64(position),
                  case .number(let count) = fields[1], let del = Int64(count) else { throw TraceError.badEdit(index) }
            var insert = ""
            if fields.count > 2 {
                guard case .string(let text) = fields[2] else { throw TraceError.badEdit(index) }
                insert = text
            }
            edits.append(Edit(position: pos, deleteCount: del, insert: insert))
        }
        self.edits = edits
    }

    /// Why a trace file could not be read.
    public enum TraceError: Error, CustomStringConvertible {
        case notAnArray
        case badEdit(Int)
        public var description: String {
            switch self {
            case .notAnArray: return "a trace is a JSON array of edits"
            case .badEdit(let index): return "edit \(index) is not [position, deleteCount, text?]"
            }
        }
    }
}
