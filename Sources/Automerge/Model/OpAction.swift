/// What an op does; the raw values are the file format's action codes.
enum OpAction: UInt8, Sendable {
    case makeMap = 0
    case set = 1
    case makeList = 2
    case delete = 3
    case makeText = 4
    case increment = 5
    /// A legacy table object; Automerge treats it as a map.
    case makeTable = 6
    case mark = 7

    /// The highest action code this implementation knows. A document chunk
    /// with a higher code is refused; a change chunk keeps it as read (its
    /// ops hold the code as a number) and is refused when applied. Storage
    /// compares codes with this rather than with a literal of its own.
    static let maxKnownRawValue: UInt8 = OpAction.mark.rawValue

    /// The type of object a make op creates.
    var objectType: ObjectKind? {
        switch self {
        case .makeMap: return .map
        case .makeTable: return .table
        case .makeList: return .list
        case .makeText: return .text
        default: return nil
        }
    }
}
