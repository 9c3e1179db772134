import Automerge
import AutomergeConformance
import Foundation

/// `changes`: a fixed base document receives the input as encoded changes.
/// Whether or not they apply, the document stays usable: it saves and
/// reloads equal, reads, takes new edits, and a copy of the base that merges
/// it ends up equal. When they apply, the patches turn the old state into
/// the new one, and applying the same bytes again changes nothing.
public enum ChangesTarget {
    static func run(_ data: Data) throws(FuzzFailure) {
        let doc = try BaseDocument.load(actor: 9)
        let mirror = PatchMirror(doc)
        var applied = true
        do {
            let patches = try doc.applyEncodedChangesWithPatches(encoded: data)
            var patched = mirror
            try patched.apply(patches)
            try patched.check(against: doc, "changes")
        } catch let failure as FuzzFailure {
            throw failure
        } catch {
            try Check.typedLoadError(error, "changes")
            applied = false
        }

        try Check.saveReload(doc, "changes")
        Check.readEverything(doc)

        let heads = doc.heads()
        if applied {
            let before = Fingerprint.of(doc)
            do { try doc.applyEncodedChanges(encoded: data) } catch {
                throw FuzzFailure("changes: applying the same bytes a second time failed: \(error)")
            }
            try Check.that(doc.heads() == heads && Fingerprint.of(doc) == before, "changes: applying the same bytes twice changed the document")
        }

        // Another copy of the base that merges this one has the same content.
        let other = try BaseDocument.load(actor: 8)
        do { try other.merge(other: doc) } catch {
            throw FuzzFailure("changes: a copy of the base cannot merge the document: \(error)")
        }
        try Check.that(other.heads() == heads, "changes: merged copy has other heads")
        try Check.sameContent(doc, other, "changes: a copy of the base that merged the document")

        // The document still takes local edits, unless received changes used its op counters up.
        guard Check.hasRoom(doc, forOps: 6) else { return }
        do {
            try doc.put(obj: .ROOT, key: "after", value: .String("edit"))
            let text = try doc.putObject(obj: .ROOT, key: "afterText", ty: .Text)
            try doc.spliceText(obj: text, start: 0, delete: 0, value: "more")
            doc.commitReproducibly(message: "after")
        } catch {
            throw FuzzFailure("changes: the document no longer takes edits: \(error)")
        }
        try Check.saveReload(doc, "changes, after an edit")
    }
}

/// The document every `changes` input is applied to: maps, a list, text
/// with marks, a counter, a conflict, and changes by two actors. Built
/// deterministically, so change chunks made from it (the seeds) stay valid.
public enum BaseDocument {
    /// A plain byte array, empty if the document could not be built. (Not a
    /// `Result` or `Optional`: LeakSanitizer does not recognise pointers that
    /// carry Swift enum tag bits, and reports what a global enum holds as leaked.)
    static let saved: [UInt8] = (try? [UInt8](make().save(compress: false))) ?? []

    /// The saved base document.
    public static func bytes() throws(FuzzFailure) -> Data {
        guard !saved.isEmpty else { throw FuzzFailure("changes: cannot build the base document") }
        return Data(saved)
    }

    /// A fresh copy of the base document writing as a fixed actor.
    public static func load(actor tag: UInt8) throws(FuzzFailure) -> Document {
        do {
            let doc = try Document(try bytes())
            doc.actor = FixedActor.make(tag)
            return doc
        } catch {
            throw FuzzFailure("changes: cannot load the base document: \(error)")
        }
    }

    static func make() throws -> Document {
        let doc = Document()
        doc.actor = FixedActor.make(1)
        try doc.put(obj: .ROOT, key: "title", value: .String("base"))
        try doc.put(obj: .ROOT, key: "count", value: .Counter(1))
        let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        for (index, value) in [ScalarValue.Int(1), .String("two"), .F64(3.5), .Boolean(true), .Null].enumerated() {
            try doc.insert(obj: list, index: UInt64(index), value: value)
        }
        let nested = try doc.insertObject(obj: list, index: 5, ty: .Map)
        try doc.put(obj: nested, key: "inner", value: .Bytes(Data([1, 2, 3])))
        let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "Hello wörld 👍🏽")
        doc.commitReproducibly(message: "base")

        let peer = doc.fork()
        peer.actor = FixedActor.make(2)
        try peer.mark(obj: text, start: 0, end: 5, expand: .after, name: "bold", value: .Boolean(true))
        try peer.put(obj: .ROOT, key: "title", value: .String("peer"))
        try peer.increment(obj: .ROOT, key: "count", by: 2)
        peer.commitReproducibly()
        try doc.put(obj: .ROOT, key: "title", value: .String("local"))
        try doc.spliceText(obj: text, start: 5, delete: 1, value: ", ")
        try doc.delete(obj: list, index: 1)
        doc.commitReproducibly()
        try doc.merge(other: peer)
        return doc
    }
}
