import Automerge
import Foundation
import GRDB

/// Documents as Automerge documents and Codable models, beside the JSON-like
/// ``BodyValue`` view: text stays text (spliced, marks kept), counters stay
/// counters, and every write is still a revision with its sequence, event
/// and history.
extension Datastore {
    /// Creates a document whose body is `model`, written by
    /// `AutomergeEncoder` (`AutomergeText` as text, `Counter` as a counter).
    /// - Throws: ``StoreError/invalidBody(_:)`` for a model that does not
    ///   encode as a map or writes a top-level key starting with `_`,
    ///   the encoder's errors, and the errors of ``createDocumentFromRevision(_:)``.
    @discardableResult
    public func createDocument<Model: Encodable>(from model: Model, docId: String? = nil,
                                                 attachments: Attachments = [:]) throws -> DocumentRevision
    {
        try create([(docId, { document, docId in
            try self.write(body: nil, attachments: attachments, into: document, generation: 1, docId: docId)
            try Self.encode(model, into: document)
        })])[0]
    }

    /// Makes the body of the document `model` with the fewest ops (fields
    /// equal to the stored ones make none), from `revision` as
    /// ``updateDocumentFromRevision(_:options:)`` does; attachments are kept.
    @discardableResult
    public func updateDocumentFromRevision<Model: Encodable>(_ revision: DocumentRevision, with model: Model,
                                                             options: WriteOptions = []) throws -> DocumentRevision
    {
        try modify(revision, options: options) { document, _, _ in try Self.encode(model, into: document) }
    }

    /// Edits the document's Automerge document directly (text splices and
    /// marks, counter increments, anything the `Document` API does) and
    /// saves the edit as the next revision, from `revision` as
    /// ``updateDocumentFromRevision(_:options:)`` does. The root map's keys
    /// starting with `_` are the store's: an edit that changes them fails.
    /// An edit that changes nothing writes nothing.
    ///
    /// Edit `document` only inside `edit`; do not keep it.
    @discardableResult
    public func updateDocumentFromRevision(_ revision: DocumentRevision, options: WriteOptions = [],
                                           edit: (Document) throws -> Void) throws -> DocumentRevision
    {
        try modify(revision, options: options) { document, _, _ in
            let reserved = try StoredLayout.reservedEntries(of: document)
            try edit(document)
            guard try StoredLayout.reservedEntries(of: document) == reserved else {
                throw StoreError.invalidBody("an edit changed the store's top-level '_' keys")
            }
        }
    }

    /// The Automerge document of a stored revision: a copy of its own, to
    /// read with the `Document` API (edits to it are not stored; use
    /// ``updateDocumentFromRevision(_:options:edit:)``).
    func storedDocument(docId: String, revId: String) throws -> Document {
        try read { db in
            guard let row = try DocumentRow.fetch(db, docId: docId) else { throw StoreError.documentNotFound(docId: docId) }
            let document = try loadDocument(row, db)
            guard revId != row.revId else { return document }
            return try document.forkAt(heads: try heads(of: row, revId: revId, db))
        }
    }

    /// Encodes `model` at the root, keeping the store's reserved entries.
    static func encode<Model: Encodable>(_ model: Model, into document: Document) throws {
        let reserved = try StoredLayout.reservedEntries(of: document)
        do {
            try AutomergeEncoder(doc: document).encode(ModelWithReservedEntries(model: model, reserved: reserved))
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.invalidBody("\(Model.self) does not encode as a body: \(error)")
        }
        guard try StoredLayout.reservedEntries(of: document) == reserved else {
            throw StoreError.invalidBody("top-level keys starting with '_' are reserved: \(Model.self) writes one")
        }
    }
}

/// A model encoded at a stored document's root together with the entries
/// the store keeps there, so that the encoder (which removes the keys a
/// value does not write) leaves them as they are.
private struct ModelWithReservedEntries<Model: Encodable>: Encodable {
    let model: Model
    let reserved: [ExactString: BodyValue]

    /// The reserved entries go first: a model that is not a map then
    /// replaces the whole map and the encoder refuses it at the root, and
    /// one that writes a reserved key overwrites it, which the caller sees.
    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: AnyCodingKey.self)
        for (key, value) in reserved { try container.encode(value, forKey: AnyCodingKey(key.string)) }
        try model.encode(to: encoder)
    }
}

extension DocumentRevision {
    /// Decodes the revision as stored with `AutomergeDecoder` (text into
    /// `AutomergeText` or `String`, counters into `Counter` or integers).
    /// Reads the stored revision, not edits made to ``body`` since.
    /// - Throws: ``StoreError/documentNotFound(docId:revId:)`` for a revision
    ///   never saved, and the decoder's errors.
    public func decodeBody<Model: Decodable>(as type: Model.Type = Model.self) throws -> Model {
        try AutomergeDecoder(doc: try automergeDocument()).decode(Model.self)
    }

    /// The revision's Automerge document, as stored: a copy of its own.
    /// - Throws: ``StoreError/documentNotFound(docId:revId:)`` for a revision never saved.
    public func automergeDocument() throws -> Document {
        guard let datastore, let docId, let revId else {
            throw StoreError.documentNotFound(docId: docId ?? "", revId: revId ?? "(not saved)")
        }
        return try datastore.storedDocument(docId: docId, revId: revId)
    }
}
