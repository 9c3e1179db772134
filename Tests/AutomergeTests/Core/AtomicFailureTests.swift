import Foundation
import Testing
@_spi(Conformance) @testable import Automerge

/// A failed call changes nothing: every throwing mutation either completes
/// or leaves the heads, the open transaction and the saved bytes exactly as
/// they were (``DocumentImage``), including when it fails part-way through
/// work that a naive implementation would already have written: the op
/// counter running out in the middle of a splice, the second of two
/// received changes being bad, a value nested too deep below containers
/// that would already exist. Each test then checks that the document still
/// edits, saves and loads.
@Suite("A failed call changes nothing")
struct AtomicFailureTests {

    // MARK: Maps and single elements

    @Test func put() throws {
        let f = try EditedDocument()
        expectRefused(f.doc, "put by key on a list", { try f.doc.put(obj: f.list, key: "k", value: .Int(1)) }) {
            if case .wrongObjectType(f.list, .List, _) = $0 { return true }
            return false
        }
        expectRefused(f.doc, "put past the end of a list", with: .indexOutOfBounds(index: 3, length: 3)) {
            try f.doc.put(obj: f.list, index: 3, value: .Int(9))
        }
        try expectStillWorks(f.doc) { try f.doc.put(obj: f.map, key: "k", value: .String("w")) }

        // Part-way: the key is found and the value compared before the op
        // counter runs out.
        let full = try EditedDocument(roomLeft: 0)
        expectRefused(full.doc, "put with no op counter left", with: .opCounterOverflow) {
            try full.doc.put(obj: full.map, key: "k", value: .String("w"))
        }
        expectRefused(full.doc, "put at an index with no op counter left", with: .opCounterOverflow) {
            try full.doc.put(obj: full.list, index: 0, value: .Int(9))
        }
        try expectStillWorks(full.doc) { full.doc.commitChange() }
    }

    @Test func putObject() throws {
        let f = try EditedDocument()
        expectRefused(f.doc, "putObject at an index of text", { _ = try f.doc.putObject(obj: f.text, index: 0, ty: .Map) }) {
            if case .wrongObjectType(f.text, .Text, _) = $0 { return true }
            return false
        }
        // Part-way: a naive put opens the transaction and takes an op id
        // before the op set refuses the nesting.
        let deepest = try nestedMaps(f.doc, depth: OpSet.maxDepth)
        expectRefused(f.doc, "putObject below the deepest level", with: .invalidChange("objects nested more than 256 deep")) {
            _ = try f.doc.putObject(obj: deepest, key: "b", ty: .List)
        }
        try expectStillWorks(f.doc) { try f.doc.put(obj: deepest, key: "b", value: .Int(1)) }

        let full = try EditedDocument(roomLeft: 0)
        expectRefused(full.doc, "putObject with no op counter left", with: .opCounterOverflow) {
            _ = try full.doc.putObject(obj: full.map, key: "new", ty: .Text)
        }
    }

    @Test func insert() throws {
        let f = try EditedDocument()
        expectRefused(f.doc, "insert into a map", { try f.doc.insert(obj: f.map, index: 0, value: .Int(1)) }) {
            if case .wrongObjectType(f.map, .Map, _) = $0 { return true }
            return false
        }
        expectRefused(f.doc, "insert past the end", with: .indexOutOfBounds(index: 4, length: 3)) {
            try f.doc.insert(obj: f.list, index: 4, value: .Int(1))
        }
        try expectStillWorks(f.doc) { try f.doc.insert(obj: f.list, index: 3, value: .Int(4)) }

        // Part-way: the insertion point is found before the counter runs out.
        let full = try EditedDocument(roomLeft: 0)
        expectRefused(full.doc, "insert with no op counter left", with: .opCounterOverflow) {
            try full.doc.insert(obj: full.list, index: 1, value: .Int(9))
        }
    }

    @Test func insertObject() throws {
        let f = try EditedDocument()
        expectRefused(f.doc, "insertObject past the end", with: .indexOutOfBounds(index: 9, length: 3)) {
            _ = try f.doc.insertObject(obj: f.list, index: 9, ty: .Map)
        }
        // Part-way: the insertion point is found before the nesting is refused.
        let parent = try nestedMaps(f.doc, depth: OpSet.maxDepth - 1)
        let deepList = try f.doc.putObject(obj: parent, key: "list", ty: .List)
        try f.doc.insert(obj: deepList, index: 0, value: .Int(1))
        expectRefused(f.doc, "insertObject into a list at the deepest level", with: .invalidChange("objects nested more than 256 deep")) {
            _ = try f.doc.insertObject(obj: deepList, index: 1, ty: .Text)
        }
        try expectStillWorks(f.doc) { _ = try f.doc.insertObject(obj: f.list, index: 0, ty: .Map) }

        let full = try EditedDocument(roomLeft: 0)
        expectRefused(full.doc, "insertObject with no op counter left", with: .opCounterOverflow) {
            _ = try full.doc.insertObject(obj: full.list, index: 0, ty: .List)
        }
    }

    @Test func delete() throws {
        let f = try EditedDocument()
        expectRefused(f.doc, "delete by index on a map", { try f.doc.delete(obj: f.map, index: 0) }) {
            if case .wrongObjectType(f.map, .Map, _) = $0 { return true }
            return false
        }
        expectRefused(f.doc, "delete at the length of a list", with: .indexOutOfBounds(index: 3, length: 3)) {
            try f.doc.delete(obj: f.list, index: 3)
        }
        expectRefused(f.doc, "delete past the end of text", with: .indexOutOfBounds(index: 12, length: 11)) {
            try f.doc.delete(obj: f.text, index: 12)
        }
        try expectStillWorks(f.doc) { try f.doc.delete(obj: f.map, key: "k") }

        // Part-way: the key's ops are found before the counter runs out.
        let full = try EditedDocument(roomLeft: 0)
        expectRefused(full.doc, "delete a key with no op counter left", with: .opCounterOverflow) { try full.doc.delete(obj: full.map, key: "k") }
        expectRefused(full.doc, "delete a character with no op counter left", with: .opCounterOverflow) { try full.doc.delete(obj: full.text, index: 0) }
    }

    @Test func increment() throws {
        let f = try EditedDocument()
        expectRefused(f.doc, "increment a string", with: .notACounter(f.map, .Key("k"))) { try f.doc.increment(obj: f.map, key: "k", by: 1) }
        expectRefused(f.doc, "increment an int in a list", with: .notACounter(f.list, .Index(0))) { try f.doc.increment(obj: f.list, index: 0, by: 1) }
        try expectStillWorks(f.doc) { try f.doc.increment(obj: .ROOT, key: "count", by: 2) }

        // Part-way: the counter is found before the op counter runs out.
        let full = try EditedDocument(roomLeft: 0)
        expectRefused(full.doc, "increment with no op counter left", with: .opCounterOverflow) {
            try full.doc.increment(obj: .ROOT, key: "count", by: 1)
        }
    }

    // MARK: Edits of several ops

    @Test func splice() throws {
        let f = try EditedDocument()
        expectRefused(f.doc, "a negative delete past the start", with: .indexOutOfBounds(index: 1, length: 3)) {
            try f.doc.splice(obj: f.list, start: 1, delete: -2, values: [.Int(0)])
        }
        // Part-way: a naive splice inserts four values (or the values and
        // two of the deletes) before the op counter runs out.
        let full = try EditedDocument(roomLeft: 4)
        expectRefused(full.doc, "six inserts with room for four", with: .opCounterOverflow) {
            try full.doc.splice(obj: full.list, start: 1, delete: 0, values: (0..<6).map { .Int($0) })
        }
        expectRefused(full.doc, "two inserts and three deletes with room for four", with: .opCounterOverflow) {
            try full.doc.splice(obj: full.list, start: 0, delete: 3, values: [.Int(7), .Int(8)])
        }
        // Deletes past the end do nothing, so they need no room.
        try expectStillWorks(full.doc) { try full.doc.splice(obj: full.list, start: 1, delete: 9, values: [.Int(7), .Int(8)]) }
    }

    @Test func spliceText() throws {
        let f = try EditedDocument()
        expectRefused(f.doc, "spliceText on a list", { try f.doc.spliceText(obj: f.list, start: 0, delete: 0, value: "x") }) {
            if case .wrongObjectType(f.list, .List, _) = $0 { return true }
            return false
        }
        let full = try EditedDocument(roomLeft: 4)
        expectRefused(full.doc, "five scalars with room for four", with: .opCounterOverflow) {
            try full.doc.spliceText(obj: full.text, start: 0, delete: 0, value: "abcde")
        }
        expectRefused(full.doc, "a flag of two scalars and three deletes with room for four", with: .opCounterOverflow) {
            try full.doc.spliceText(obj: full.text, start: 2, delete: 3, value: "🇫🇷")
        }
        try expectStillWorks(full.doc) { try full.doc.spliceText(obj: full.text, start: 0, delete: 2, value: "🇫🇷") }
        #expect(try full.doc.text(obj: full.text) == "🇫🇷llo world")
    }

    @Test func updateText() throws {
        let f = try EditedDocument()
        expectRefused(f.doc, "updateText of a list", { try f.doc.updateText(obj: f.list, value: "x") }) {
            if case .wrongObjectType(f.list, .List, _) = $0 { return true }
            return false
        }
        // Part-way: the diff deletes "orld" and inserts "xyz"; a naive
        // update would make the deletes before the inserts run out of counters.
        let full = try EditedDocument(roomLeft: 4)
        expectRefused(full.doc, "a diff of seven ops with room for four", with: .opCounterOverflow) {
            try full.doc.updateText(obj: full.text, value: "hello wxyz")
        }
        try expectStillWorks(full.doc) { try full.doc.updateText(obj: full.text, value: "hello wor") }
        #expect(try full.doc.text(obj: full.text) == "hello wor")
    }

    @Test func mark() throws {
        let f = try EditedDocument()
        expectRefused(f.doc, "a mark ending past the end", with: .indexOutOfBounds(index: 12, length: 11)) {
            try f.doc.mark(obj: f.text, start: 1, end: 12, expand: .none, name: "bold", value: .Boolean(true))
        }
        expectRefused(f.doc, "a mark on a map", { try f.doc.mark(obj: f.map, start: 0, end: 0, expand: .both, name: "b", value: .Null) }) {
            if case .wrongObjectType(f.map, .Map, _) = $0 { return true }
            return false
        }
        // Part-way: a naive mark inserts its begin anchor, then has no
        // counter left for its end anchor; unmarking (a null value) too.
        let full = try EditedDocument(roomLeft: 1)
        expectRefused(full.doc, "a mark with room for one anchor", with: .opCounterOverflow) {
            try full.doc.mark(obj: full.text, start: 0, end: 5, expand: .after, name: "bold", value: .Boolean(true))
        }
        expectRefused(full.doc, "an unmark with room for one anchor", with: .opCounterOverflow) {
            try full.doc.mark(obj: full.text, start: 0, end: 5, expand: .none, name: "bold", value: .Null)
        }
        try expectStillWorks(full.doc) { try full.doc.put(obj: full.map, key: "k", value: .Int(3)) }
    }
}
