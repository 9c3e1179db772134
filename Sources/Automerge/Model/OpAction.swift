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
