/// The kinds of object, including the legacy table.
enum ObjectKind: Sendable {
    case map, table, list, text

    var publicType: ObjType {
        switch self {
        case .map, .table: return .Map
        case .list: return .List
        case .text: return .Text
        }
    }

    var isSequence: Bool { self == .list || self == .text }

    init(_ type: ObjType) {
        switch type {
        case .Map: self = .map
        case .List: self = .list
        case .Text: self = .text
        }
    }

    var makeAction: OpAction {
        switch self {
        case .map: return .makeMap
        case .table: return .makeTable
        case .list: return .makeList
        case .text: return .makeText
        }
    }
}
