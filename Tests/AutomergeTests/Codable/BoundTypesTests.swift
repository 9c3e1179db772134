import Foundation
import Testing
@testable import Automerge

struct CodableNote: Codable, Equatable {
    var title: AutomergeText
    var body: AutomergeText
    var views: Counter
    var category: String
}

@Suite("Codable: AutomergeText and Counter")
struct CodableBoundTypesTests {
    private func makeNote() throws -> (Document, CodableNote) {
        let doc = Document()
        let note = CodableNote(title: AutomergeText("Hello"), body: AutomergeText("Body text"), views: Counter(3), category: "misc")
        try AutomergeEncoder(doc: doc).encode(note)
        return (doc, note)
    }

    @Test func encodingCreatesTextAndCounterAndBindsThem() throws {
        let (doc, note) = try makeNote()
        guard case .Object(let title, .Text)? = try doc.get(obj: .ROOT, key: "title") else {
            Issue.record("title should be a Text object")
            return
        }
        #expect(try doc.text(obj: title) == "Hello")
        #expect(try doc.get(obj: .ROOT, key: "views") == .Scalar(.Counter(3)))
        #expect(note.title.isBound && note.views.isBound)
        note.title.value = "Hello, world"
        note.views.increment(by: 2)
        #expect(try doc.text(obj: title) == "Hello, world")
        #expect(try doc.get(obj: .ROOT, key: "views") == .Scalar(.Counter(5)))
    }

    @Test func decodingBindsAndWritesUseMinimalSplices() throws {
        let (doc, _) = try makeNote()
        let decoded = try AutomergeDecoder(doc: doc).decode(CodableNote.self)
        #expect(decoded.title.isBound && decoded.views.isBound)
        #expect(decoded.title.value == "Hello" && decoded.views.value == 3)
        codableSettle(doc)
        decoded.title.value = "Hello!"
        #expect(codablePendingOps(doc) == 1)
        codableSettle(doc)
        decoded.views.value = 10
        #expect(codablePendingOps(doc) == 1)
        #expect(try doc.get(obj: .ROOT, key: "views") == .Scalar(.Counter(10)))
    }

    @Test func reEncodingBoundTypesWritesNothingAndNeverLosesText() throws {
        let (doc, note) = try makeNote()
        let decoded = try AutomergeDecoder(doc: doc).decode(CodableNote.self)
        decoded.body.value = "Body text, edited through the binding"
        #expect(try codableOpsToEncode(decoded, into: doc) == 0)
        #expect(try codableOpsToEncode(note, into: doc) == 0)
        #expect(try AutomergeDecoder(doc: doc).decode(CodableNote.self).body.value == "Body text, edited through the binding")
    }

    @Test func unboundTextOverExistingTextIsSpliced() throws {
        let (doc, _) = try makeNote()
        guard case .Object(let title, .Text)? = try doc.get(obj: .ROOT, key: "title") else { return }
        let fresh = CodableNote(title: AutomergeText("Hello there"), body: AutomergeText("Body text"), views: Counter(3), category: "misc")
        #expect(try codableOpsToEncode(fresh, into: doc) == 6)
        #expect(try doc.get(obj: .ROOT, key: "title") == .Object(title, .Text))
        #expect(fresh.title.isBound && fresh.body.isBound && fresh.views.isBound)
    }

    @Test func textAndCounterMergeFromTwoPeers() throws {
        let (doc, _) = try makeNote()
        let peer = doc.fork()
        let mine = try AutomergeDecoder(doc: doc).decode(CodableNote.self)
        let theirs = try AutomergeDecoder(doc: peer).decode(CodableNote.self)
        mine.title.value = "Hello world"
        theirs.title.value = "Why Hello"
        mine.views.increment(by: 3)
        theirs.views.increment(by: 2)
        try doc.merge(other: peer)
        let merged = try AutomergeDecoder(doc: doc).decode(CodableNote.self)
        #expect(merged.title.value == "Why Hello world")
        #expect(merged.views.value == 8)
        // The instances decoded before the merge see the merged document too.
        #expect(mine.title.value == "Why Hello world" && mine.views.value == 8)
    }

    @Test func manualBinding() throws {
        let doc = Document()
        let counter = Counter(4)
        try counter.bind(doc: doc, path: [AnyCodingKey("stats"), AnyCodingKey("views")])
        #expect(counter.value == 4)
        let other = Counter(1)
        try other.bind(doc: doc, path: ".stats.views")
        #expect(counter.value == 5 && other.value == 5)
        #expect(throws: BindingError.NotCounter) { try Counter().bind(doc: doc, path: ".stats") }

        let text = AutomergeText("draft")
        try text.bind(doc: doc, path: ".notes.[0]")
        #expect(text.value == "draft")
        #expect(try AutomergeText(doc: doc, objId: doc.lookupPath(path: ".notes.[0]")!).value == "draft")
        let sameText = try AutomergeText(doc: doc, path: ".notes.[0]")
        #expect(sameText.value == "draft")
        #expect(throws: BindingError.NotText) { try AutomergeText().bind(doc: doc, path: ".stats.views") }
        #expect(throws: BindingError.self) { try AutomergeText().bind(doc: doc, path: ".stats.views.deeper") }
        #expect(throws: BindingError.NotText) { try AutomergeText(doc: doc, objId: .ROOT) }
        let byKey = try Counter(doc: doc, objId: doc.lookupPath(path: ".stats")!, key: AnyCodingKey("views"))
        #expect(byKey.value == 5)
        // Binding an instance that is bound to another document moves it here.
        let elsewhere = Document()
        let moving = try AutomergeText("moving", doc: elsewhere, path: ".t")
        try moving.bind(doc: doc, path: ".moved")
        moving.value = "moved"
        #expect(try doc.text(obj: doc.lookupPath(path: ".moved")!) == "moved")
        #expect(try elsewhere.text(obj: elsewhere.lookupPath(path: ".t")!) == "moving")
    }

    @Test func unboundInstancesKeepTheirValues() throws {
        let text = AutomergeText("local")
        text.value = "changed"
        #expect(!text.isBound && text.value == "changed")
        let counter = Counter()
        counter.increment(by: 4)
        counter.value -= 1
        #expect(!counter.isBound && counter.value == 3)
        #expect(counter == Counter(3) && text == AutomergeText("changed"))
        #expect(Set([counter, Counter(3)]).count == 1)
    }

    @Test func otherEncodersSeeAKeyedValue() throws {
        let json = try JSONEncoder().encode(CodableNote(title: AutomergeText("t"), body: AutomergeText("b"), views: Counter(2), category: "c"))
        let decoded = try JSONDecoder().decode(CodableNote.self, from: json)
        #expect(decoded.title.value == "t" && decoded.views.value == 2)
        #expect(String(decoding: json, as: UTF8.self).contains(#""title":{"value":"t"}"#))
    }

    @Test func decodingTextOrCounterFromTheWrongValueThrows() throws {
        let doc = Document()
        try doc.put(obj: .ROOT, key: "title", value: .String("plain"))
        try doc.put(obj: .ROOT, key: "body", value: .String("plain"))
        try doc.put(obj: .ROOT, key: "views", value: .Int(1))
        try doc.put(obj: .ROOT, key: "category", value: .String("c"))
        do {
            _ = try AutomergeDecoder(doc: doc).decode(CodableNote.self)
            Issue.record("expected a type mismatch")
        } catch DecodingError.typeMismatch(let type, let context) {
            #expect(type is AutomergeText.Type)
            #expect(context.codingPath.map(\.stringValue) == ["body"] || context.codingPath.map(\.stringValue) == ["title"])
        }
    }

    @Test func countersInAListAndAtAPath() throws {
        struct Scores: Codable { var points: [Counter] }
        let doc = Document()
        try AutomergeEncoder(doc: doc).encode(Scores(points: [Counter(1), Counter(2)]))
        let peer = doc.fork()
        let mine = try AutomergeDecoder(doc: doc).decode(Scores.self)
        let theirs = try AutomergeDecoder(doc: peer).decode(Scores.self)
        mine.points[1].increment(by: 10)
        theirs.points[1].increment(by: 100)
        try doc.merge(other: peer)
        #expect(try AutomergeDecoder(doc: doc).decode(Scores.self).points.map(\.value) == [1, 112])
        let single = try AutomergeDecoder(doc: doc).decode(Counter.self, from: [AnyCodingKey("points"), AnyCodingKey(1)])
        single.increment(by: 1)
        #expect(mine.points[1].value == 113)
    }
}

@Suite("Codable: bound types follow their values")
struct CodableBindingFollowsTests {
    @Test func reorderedTextsStayBoundToVisibleText() throws {
        struct Paragraphs: Codable { var items: [AutomergeText] }
        let doc = Document()
        try AutomergeEncoder(doc: doc).encode(Paragraphs(items: ["one", "two", "three"].map { AutomergeText($0) }))
        var model = try AutomergeDecoder(doc: doc).decode(Paragraphs.self)
        model.items.swapAt(0, 2)
        try AutomergeEncoder(doc: doc).encode(model)
        for paragraph in model.items { paragraph.value += "!" }
        #expect(try AutomergeDecoder(doc: doc).decode(Paragraphs.self).items.map(\.value) == ["three!", "two!", "one!"])
    }

    @Test func countersInAListFollowInsertions() throws {
        struct Tally: Codable { var counts: [Counter] }
        let doc = Document()
        try AutomergeEncoder(doc: doc).encode(Tally(counts: [Counter(1), Counter(2)]))
        var model = try AutomergeDecoder(doc: doc).decode(Tally.self)
        model.counts.insert(Counter(7), at: 0)
        try AutomergeEncoder(doc: doc).encode(model)
        model.counts[2].increment(by: 10)
        #expect(try AutomergeDecoder(doc: doc).decode(Tally.self).counts.map(\.value) == [7, 1, 12])
        #expect(model.counts.map(\.value) == [7, 1, 12])
    }

    @Test func instancesBoundToAnotherDocumentStayBound() throws {
        let first = Document()
        try AutomergeEncoder(doc: first).encode(CodableNote(title: AutomergeText("t"), body: AutomergeText("b"), views: Counter(1), category: "c"))
        let note = try AutomergeDecoder(doc: first).decode(CodableNote.self)
        let second = Document()
        try AutomergeEncoder(doc: second).encode(note)
        note.title.value = "only in first"
        note.views.increment(by: 1)
        #expect(try AutomergeDecoder(doc: second).decode(CodableNote.self).title.value == "t")
        #expect(try AutomergeDecoder(doc: second).decode(CodableNote.self).views.value == 1)
        #expect(try AutomergeDecoder(doc: first).decode(CodableNote.self).views.value == 2)
    }
}
