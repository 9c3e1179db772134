import AutomergeConformance
import Foundation
import Testing
@testable import Automerge


/// The length of a longest common subsequence, by dynamic programming.
private func lcsLength(_ a: [Int], _ b: [Int]) -> Int {
    var row = [Int](repeating: 0, count: b.count + 1)
    for x in a {
        var diagonal = 0
        for (j, y) in b.enumerated() {
            let saved = row[j + 1]
            row[j + 1] = x == y ? diagonal + 1 : max(row[j + 1], row[j])
            diagonal = saved
        }
    }
    return row[b.count]
}

@Suite("Codable: list alignment")
struct CodableListAlignmentTests {
    @Test func alignmentsAreValidAndMinimal() {
        var rng = SeededGenerator(seed: 42)
        for _ in 0..<300 {
            let old = (0..<Int.random(in: 0...12, using: &rng)).map { _ in Int.random(in: 0...4, using: &rng) }
            let new = (0..<Int.random(in: 0...12, using: &rng)).map { _ in Int.random(in: 0...4, using: &rng) }
            let steps = ListAlignment.align(oldCount: old.count, newCount: new.count) { old[$0] == new[$1] }
            var nextOld = 0, nextNew = 0, keeps = 0
            for step in steps {
                switch step {
                case .keep(let o, let n):
                    #expect(o == nextOld && n == nextNew && old[o] == new[n])
                    nextOld += 1; nextNew += 1; keeps += 1
                case .delete(let o):
                    #expect(o == nextOld)
                    nextOld += 1
                case .insert(let n):
                    #expect(n == nextNew)
                    nextNew += 1
                }
            }
            #expect(nextOld == old.count && nextNew == new.count)
            #expect(keeps == lcsLength(old, new), "\(old) -> \(new)")
        }
    }

    @Test func largeRewritesFallBackToDeleteAndInsertEverything() {
        let steps = ListAlignment.align(oldCount: 3, newCount: 3, maxEdits: 2) { _, _ in false }
        #expect(steps == [.delete(old: 0), .delete(old: 1), .delete(old: 2), .insert(new: 0), .insert(new: 1), .insert(new: 2)])
    }

    @Test func randomModelEditsRoundTrip() throws {
        var rng = SeededGenerator(seed: 7)
        let doc = Document()
        var model = CodableTodoList(owner: "me", items: (0..<30).map { CodableItem(id: $0, title: "t\($0)", done: false) })
        try AutomergeEncoder(doc: doc).encode(model)
        var nextId = 30
        for _ in 0..<60 {
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                switch Int.random(in: 0..<4, using: &rng) {
                case 0 where !model.items.isEmpty:
                    model.items.remove(at: Int.random(in: 0..<model.items.count, using: &rng))
                case 1:
                    model.items.insert(CodableItem(id: nextId, title: "n\(nextId)", done: true), at: Int.random(in: 0...model.items.count, using: &rng))
                    nextId += 1
                case 2 where !model.items.isEmpty:
                    model.items[Int.random(in: 0..<model.items.count, using: &rng)].done.toggle()
                case 3 where model.items.count > 1:
                    let moved = model.items.remove(at: Int.random(in: 0..<model.items.count, using: &rng))
                    model.items.insert(moved, at: Int.random(in: 0...model.items.count, using: &rng))
                default:
                    model.owner += "."
                }
            }
            try AutomergeEncoder(doc: doc).encode(model)
            #expect(try AutomergeDecoder(doc: doc).decode(CodableTodoList.self) == model)
        }
    }
}
