import Foundation
@testable import Automerge

/// Ops made since the last commit (the open transaction), committing nothing.
func codablePendingOps(_ doc: Document) -> Int {
    doc.locked { $0.transaction?.ops.count ?? 0 }
}

/// Commits pending edits so the next count starts at zero.
func codableSettle(_ doc: Document) {
    doc.commitWith()
}

/// Encodes `value` into `doc` and returns how many ops that created.
@discardableResult
func codableOpsToEncode<T: Encodable>(_ value: T, into doc: Document, strategy: SchemaStrategy = .createWhenNeeded) throws -> Int {
    codableSettle(doc)
    try AutomergeEncoder(doc: doc, strategy: strategy).encode(value)
    return codablePendingOps(doc)
}

/// Encodes into a fresh document and decodes back.
func codableRoundTrip<T: Codable>(_ value: T, as type: T.Type = T.self) throws -> T {
    let doc = Document()
    try AutomergeEncoder(doc: doc).encode(value)
    return try AutomergeDecoder(doc: doc).decode(T.self)
}

/// A single-field wrapper, so scalars can be encoded at the root map.
struct CodableBox<T: Codable & Equatable>: Codable, Equatable {
    var value: T
}

struct CodableAddress: Codable, Equatable {
    var street: String
    var city: String
    var zip: String?
}

struct CodablePerson: Codable, Equatable {
    var name: String
    var age: Int
    var address: CodableAddress
    var nicknames: [String]
    var email: String?
}

struct CodableItem: Codable, Equatable, Hashable {
    var id: Int
    var title: String
    var done: Bool
}

struct CodableTodoList: Codable, Equatable {
    var owner: String
    var items: [CodableItem]
}
