import Foundation
@testable import Automerge

/// Ops made since the last commit (the open transaction), committing nothing.
func pendingOps(_ doc: Document) -> Int {
    doc.locked { $0.transaction?.ops.count ?? 0 }
}

/// Commits pending edits so the next count starts at zero.
func settle(_ doc: Document) {
    doc.commitWith()
}

/// Encodes `value` into `doc` and returns how many ops that created.
@discardableResult
func opsToEncode<T: Encodable>(_ value: T, into doc: Document, strategy: SchemaStrategy = .createWhenNeeded) throws -> Int {
    settle(doc)
    try AutomergeEncoder(doc: doc, strategy: strategy).encode(value)
    return pendingOps(doc)
}

/// Encodes into a fresh document and decodes back.
func roundTrip<T: Codable>(_ value: T, as type: T.Type = T.self) throws -> T {
    let doc = Document()
    try AutomergeEncoder(doc: doc).encode(value)
    return try AutomergeDecoder(doc: doc).decode(T.self)
}

/// A single-field wrapper, so scalars can be encoded at the root map.
struct Box<T: Codable & Equatable>: Codable, Equatable {
    var value: T
}

struct Address: Codable, Equatable {
    var street: String
    var city: String
    var zip: String?
}

struct Person: Codable, Equatable {
    var name: String
    var age: Int
    var address: Address
    var nicknames: [String]
    var email: String?
}

struct Item: Codable, Equatable, Hashable {
    var id: Int
    var title: String
    var done: Bool
}

struct TodoList: Codable, Equatable {
    var owner: String
    var items: [Item]
}
