import Automerge
import AutomergeConformance
import Foundation

/// `load`: any bytes into `Document(_:)`. A document that loads must dump,
/// save (both ways) and reload to the same dump and heads, and its history
/// must be readable.
enum LoadTarget {
    static func run(_ data: Data) throws(FuzzFailure) {
        let doc: Document
        do { doc = try Document(data) } catch {
            try Check.typedLoadError(error, "load")
            return
        }
        let heads = doc.heads()
        try Check.saveReload(doc, "load")
        Check.readEverything(doc)

        // History: every change is readable, and its bytes load on their own
        // terms (a change chunk applies to a document that has its dependencies).
        let history = doc.getHistory()
        try Check.that(Set(history).isSuperset(of: heads), "load: heads missing from history")
        for hash in history.prefix(64) {
            guard let change = doc.change(hash: hash) else { throw FuzzFailure("load: change \(hash) in history but not readable") }
            try Check.that(change.hash == hash, "load: change(hash:) returned \(change.hash) for \(hash)")
        }

        // A fork at the current heads is the same document.
        let fork: Document
        do { fork = try doc.forkAt(heads: heads) } catch {
            throw FuzzFailure("load: forkAt(heads()) failed: \(error)")
        }
        try Check.sameDocument(doc, fork, "load: forkAt(heads()) against the document")

        // The changes, re-applied to an empty document, give the same document.
        let empty = Document()
        do { try empty.applyEncodedChanges(encoded: doc.encodeChangesSince(heads: [])) } catch {
            throw FuzzFailure("load: re-applying the document's own changes failed: \(error)")
        }
        try Check.that(empty.heads() == heads, "load: re-applied changes give other heads")
        try Check.sameDocument(doc, empty, "load: the document's changes re-applied to an empty document")
    }
}

extension JSONValue {
    /// A member of an object.
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }
}
