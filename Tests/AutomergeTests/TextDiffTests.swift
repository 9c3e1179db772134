import AutomergeConformance
import Testing
@testable import Automerge

// Specification of `TextDiff.myers`: it must make exactly the hook calls
// (kind, order, arguments) that automerge's Rust `myers::diff` makes, because
// `update_text` turns each call into a `splice_text` op.
//
// Expected sequences marked "hand trace" were derived by stepping through the
// reference algorithm on paper (per level: strip common prefix -> equal, strip
// common suffix, then the middle-snake search with k running from +d down to
// -d, forward pass before backward pass, then recurse into the two halves,
// then the suffix equal). They were also cross-checked against a throwaway
// build of the Rust reference code.

private func chars(_ s: String) -> [Character] { Array(s) }

@Suite("TextDiff.myers")
struct TextDiffTests {

    // MARK: Trivial inputs

    @Test func bothEmpty() {
        #expect(TextDiff.myers([Character](), []) == [])
    }

    @Test func identicalInputsAreOneEqual() {
        // The whole input is the common prefix.
        #expect(TextDiff.myers(chars("abc"), chars("abc")) == [.equal(old: 0, new: 0, count: 3)])
    }

    @Test func pureInsertIntoEmpty() {
        // Prefix/suffix are 0 (empty range), old range empty -> one insert.
        #expect(TextDiff.myers(chars(""), chars("abc")) == [.insert(old: 0, new: 0, count: 3)])
    }

    @Test func pureDeleteToEmpty() {
        #expect(TextDiff.myers(chars("abc"), chars("")) == [.delete(old: 0, count: 3, new: 0)])
    }

    // MARK: Prefix / suffix handling

    @Test func insertInMiddle() {
        // Prefix "a", suffix "c", empty old middle -> insert between them.
        #expect(TextDiff.myers(chars("ac"), chars("abc")) == [
            .equal(old: 0, new: 0, count: 1),
            .insert(old: 1, new: 1, count: 1),
            .equal(old: 1, new: 2, count: 1),
        ])
    }

    @Test func deleteInMiddle() {
        #expect(TextDiff.myers(chars("abc"), chars("ac")) == [
            .equal(old: 0, new: 0, count: 1),
            .delete(old: 1, count: 1, new: 1),
            .equal(old: 2, new: 1, count: 1),
        ])
    }

    @Test func prefixIsGreedySoRepeatedRunsLoseTheirTail() {
        // The prefix "aa" is taken first, so the deleted "a" is the last one.
        #expect(TextDiff.myers(chars("aaa"), chars("aa")) == [
            .equal(old: 0, new: 0, count: 2),
            .delete(old: 2, count: 1, new: 2),
        ])
        #expect(TextDiff.myers(chars("aa"), chars("aaa")) == [
            .equal(old: 0, new: 0, count: 2),
            .insert(old: 2, new: 2, count: 1),
        ])
    }

    @Test func appendAndPrepend() {
        #expect(TextDiff.myers(chars("ab"), chars("abcd")) == [
            .equal(old: 0, new: 0, count: 2),
            .insert(old: 2, new: 2, count: 2),
        ])
        #expect(TextDiff.myers(chars("cd"), chars("abcd")) == [
            .insert(old: 0, new: 0, count: 2),
            .equal(old: 0, new: 2, count: 2),
        ])
        #expect(TextDiff.myers(chars("abcd"), chars("cd")) == [
            .delete(old: 0, count: 2, new: 0),
            .equal(old: 2, new: 0, count: 2),
        ])
    }

    // MARK: Middle snake and tie-breaking (hand traces)

    @Test func singleSubstitutionInsertsBeforeDeleting() {
        // Hand trace "X" -> "Y" (n = m = 1, delta 0, even):
        //  d=0: fwd k=0 x=0 (X!=Y); bwd k=0 x=0, overlap 0+0 < 1.
        //  d=1: fwd k=1 x=1, k=-1 x=0. bwd k=1: x=vb[0]+1=1, y=0,
        //       overlap vb[1]+vf[-1] = 1 >= 1 -> split at (n-1, m-0) = (0, 1).
        //  Halves: ("", "Y") -> insert, then ("X", "") -> delete.
        #expect(TextDiff.myers(chars("X"), chars("Y")) == [
            .insert(old: 0, new: 0, count: 1),
            .delete(old: 0, count: 1, new: 1),
        ])
    }

    @Test func substitutionBetweenPrefixAndSuffix() {
        // Hand trace "abXcd" -> "abYZcd": prefix 2, suffix 2, middle "X" vs
        // "YZ" (n=1, m=2, delta -1, odd). The forward pass at d=2, k=0 starts
        // its snake at (1,1) and meets the backward pass (vf[0]+vb[-1] = 1 >= 1),
        // so the split is at (3,3): "X" vs "Y" (rule above), then "" vs "Z".
        #expect(TextDiff.myers(chars("abXcd"), chars("abYZcd")) == [
            .equal(old: 0, new: 0, count: 2),
            .insert(old: 2, new: 2, count: 1),
            .delete(old: 2, count: 1, new: 3),
            .insert(old: 3, new: 3, count: 1),
            .equal(old: 3, new: 4, count: 2),
        ])
    }

    @Test func fullReplacementInsertsThenDeletes() {
        // Hand trace "ab" -> "cd" (n = m = 2): no snakes anywhere; the first
        // overlap is found at d=2 in the backward pass, k=2: x = vb[1]+1 = 2,
        // y = 0, vb[2]+vf[-2] = 2 >= 2 -> split at (0, 2). Halves:
        // ("", "cd") -> insert, ("ab", "") -> delete.
        #expect(TextDiff.myers(chars("ab"), chars("cd")) == [
            .insert(old: 0, new: 0, count: 2),
            .delete(old: 0, count: 2, new: 2),
        ])
    }

    @Test func swapPrefersInsertFirst() {
        // Hand trace "ab" -> "ba". Two minimal scripts exist (delete a, keep b,
        // insert a / insert b, keep a, delete b). d=1 backward k=1: x=1, y=0,
        // the suffix snake "a"="a" moves to (2,1); vb[1]+vf[-1] = 2+1 >= 2 ->
        // split at (n-2, m-1) = (0, 1). Halves: ("", "b") -> insert;
        // ("ab", "a") -> prefix equal "a", then delete "b".
        #expect(TextDiff.myers(chars("ab"), chars("ba")) == [
            .insert(old: 0, new: 0, count: 1),
            .equal(old: 0, new: 1, count: 1),
            .delete(old: 1, count: 1, new: 2),
        ])
    }

    @Test func myersPaperExample() {
        // The classic ABCABBA -> CBABAC. The Rust reference's own unit test
        // pins the top-level middle snake at (4, 1). Hand trace of the halves:
        //  ("ABCA", "C"): n=4, m=1, delta 3 (odd). d=1 bwd k=1 finds snake
        //    "C" (vb[1]=2); d=2 fwd k=2 starts at (2,0), vf[2]=3, 3+vb[1] >= 4
        //    -> split (2,0): delete "AB"; then ("CA","C") -> equal C, delete A.
        //  ("BBA", "BABAC"): prefix "B"; middle "BA" vs "ABAC" (delta -2, even);
        //    d=1 bwd k=-1 snake "BA" -> split at (5,3): insert "A"; then
        //    ("BA","BAC") -> equal "BA", insert "C".
        let old = chars("ABCABBA"), new = chars("CBABAC")
        #expect(TextDiff.myers(old, new) == [
            .delete(old: 0, count: 2, new: 0),
            .equal(old: 2, new: 0, count: 1),
            .delete(old: 3, count: 1, new: 1),
            .equal(old: 4, new: 1, count: 1),
            .insert(old: 5, new: 2, count: 1),
            .equal(old: 5, new: 3, count: 2),
            .insert(old: 7, new: 5, count: 1),
        ])
    }

    @Test func interleavedSubstitutions() {
        // Hand trace "abcde" -> "a9c8e": prefix "a", suffix "e"; middle "bcd"
        // vs "9c8" (delta 0). At d=2 the backward pass on k=0 follows the
        // snake "c" to (2,2) and overlaps vf[0]=2 -> split at (2,2).
        // ("b","9") and later ("d","8") follow the single-substitution rule.
        #expect(TextDiff.myers(chars("abcde"), chars("a9c8e")) == [
            .equal(old: 0, new: 0, count: 1),
            .insert(old: 1, new: 1, count: 1),
            .delete(old: 1, count: 1, new: 2),
            .equal(old: 2, new: 2, count: 1),
            .insert(old: 3, new: 3, count: 1),
            .delete(old: 3, count: 1, new: 4),
            .equal(old: 4, new: 4, count: 1),
        ])
    }

    @Test func graphemeClustersAreSingleElements() {
        // Callers diff grapheme clusters; a Character holding a multi-scalar
        // cluster is compared as one unit.
        let old = chars("a👍🏽b"), new = chars("a👍🏿b")
        #expect(old.count == 3)
        #expect(TextDiff.myers(old, new) == [
            .equal(old: 0, new: 0, count: 1),
            .insert(old: 1, new: 1, count: 1),
            .delete(old: 1, count: 1, new: 2),
            .equal(old: 2, new: 2, count: 1),
        ])
    }

    // MARK: Properties

    @Test func randomSmallInputsProduceValidMinimalScripts() {
        var rng = SeededGenerator(seed: 0x5eed_d1ff)
        for _ in 0..<3000 {
            let alphabet = Int(rng.next() % 4) + 1
            let old = randomArray(&rng, maxCount: 12, alphabet: alphabet)
            let new = randomArray(&rng, maxCount: 12, alphabet: alphabet)
            let edits = TextDiff.myers(old, new)
            let replay = replayEdits(edits, old: old, new: new)
            #expect(replay.valid, "edits do not walk old/new in order: \(old) -> \(new): \(edits)")
            #expect(replay.result == new, "\(old) -> \(new): \(edits)")
            #expect(replay.equalCount == lcsLength(old, new), "not minimal: \(old) -> \(new): \(edits)")
        }
    }

    @Test func largeInputsDoNotExhaustStackOrMemory() {
        // 100k elements with scattered edits; also exercises the explicit work
        // stack and the frontier arrays sized for the whole input.
        var rng = SeededGenerator(seed: 42)
        let old = (0..<100_000).map { _ in Int(rng.next() % 64) }
        var new = old
        for _ in 0..<20 {
            let at = Int(rng.next() % UInt64(new.count))
            switch rng.next() % 3 {
            case 0: new.insert(contentsOf: [100, 101, 102], at: at)
            case 1: new.removeSubrange(at..<min(at + 5, new.count))
            default: new[at] = 200
            }
        }
        let edits = TextDiff.myers(old, new)
        let replay = replayEdits(edits, old: old, new: new)
        #expect(replay.valid)
        #expect(replay.result == new)
    }

    @Test func completelyDifferentInputsStillTerminate() {
        // No deadline: the full search runs. 1500 vs 1500 distinct elements.
        let old = Array(0..<1500), new = Array(1500..<3000)
        #expect(TextDiff.myers(old, new) == [
            .insert(old: 0, new: 0, count: 1500),
            .delete(old: 0, count: 1500, new: 1500),
        ])
    }

    @Test(arguments: referenceRecordings)
    func matchesReferenceRecording(_ recording: TextDiffRecording) {
        #expect(TextDiff.myers(chars(recording.old), chars(recording.new)) == recording.edits)
    }
}

/// Hook sequences recorded from the Rust reference algorithm (run on the
/// Unicode scalar values of these ASCII strings). Too long to trace by hand,
/// they pin the tie-breaking on realistic text. Note that the reference does
/// not merge adjacent calls of the same kind (two inserts or two equals in a
/// row occur), and neither may we.
struct TextDiffRecording: Sendable, CustomTestStringConvertible {
    let old: String
    let new: String
    let edits: [DiffEdit]
    var testDescription: String { "\(old) -> \(new)" }
}

private let referenceRecordings: [TextDiffRecording] = [
    TextDiffRecording(
        old: "the quick brown fox jumps over the lazy dog",
        new: "the quick red fox jumped over a lazy dog!",
        edits: [
            .equal(old: 0, new: 0, count: 10),
            .delete(old: 10, count: 1, new: 10),
            .equal(old: 11, new: 10, count: 1),
            .delete(old: 12, count: 1, new: 11),
            .delete(old: 13, count: 2, new: 11),
            .insert(old: 15, new: 11, count: 2),
            .equal(old: 15, new: 13, count: 9),
            .insert(old: 24, new: 22, count: 1),
            .insert(old: 24, new: 23, count: 1),
            .delete(old: 24, count: 1, new: 24),
            .equal(old: 25, new: 24, count: 6),
            .delete(old: 31, count: 2, new: 30),
            .insert(old: 33, new: 30, count: 1),
            .delete(old: 33, count: 1, new: 31),
            .equal(old: 34, new: 31, count: 9),
            .insert(old: 43, new: 40, count: 1),
        ]),
    TextDiffRecording(
        old: "kitten sitting on the mat",
        new: "sitting kitten at the mall",
        edits: [
            .insert(old: 0, new: 0, count: 1),
            .delete(old: 0, count: 1, new: 1),
            .equal(old: 1, new: 1, count: 3),
            .delete(old: 4, count: 1, new: 4),
            .insert(old: 5, new: 4, count: 1),
            .equal(old: 5, new: 5, count: 1),
            .insert(old: 6, new: 6, count: 1),
            .equal(old: 6, new: 7, count: 1),
            .insert(old: 7, new: 8, count: 1),
            .delete(old: 7, count: 1, new: 9),
            .equal(old: 8, new: 9, count: 3),
            .insert(old: 11, new: 12, count: 1),
            .delete(old: 11, count: 1, new: 13),
            .equal(old: 12, new: 13, count: 1),
            .delete(old: 13, count: 1, new: 14),
            .equal(old: 14, new: 14, count: 1),
            .insert(old: 15, new: 15, count: 1),
            .insert(old: 15, new: 16, count: 1),
            .delete(old: 15, count: 1, new: 17),
            .delete(old: 16, count: 1, new: 17),
            .equal(old: 17, new: 17, count: 7),
            .insert(old: 24, new: 24, count: 1),
            .insert(old: 24, new: 25, count: 1),
            .delete(old: 24, count: 1, new: 26),
        ]),
    TextDiffRecording(
        old: "abcabcabcabc",
        new: "acbacbbcaab",
        edits: [
            .equal(old: 0, new: 0, count: 1),
            .insert(old: 1, new: 1, count: 1),
            .equal(old: 1, new: 2, count: 1),
            .delete(old: 2, count: 1, new: 3),
            .equal(old: 3, new: 3, count: 1),
            .delete(old: 4, count: 1, new: 4),
            .equal(old: 5, new: 4, count: 1),
            .delete(old: 6, count: 1, new: 5),
            .equal(old: 7, new: 5, count: 1),
            .insert(old: 8, new: 6, count: 1),
            .equal(old: 8, new: 7, count: 1),
            .insert(old: 9, new: 8, count: 1),
            .equal(old: 9, new: 9, count: 1),
            .equal(old: 10, new: 10, count: 1),
            .delete(old: 11, count: 1, new: 11),
        ]),
    TextDiffRecording(
        old: "mississippi",
        new: "misplaced hippie",
        edits: [
            .equal(old: 0, new: 0, count: 3),
            .delete(old: 3, count: 4, new: 3),
            .insert(old: 7, new: 3, count: 3),
            .insert(old: 7, new: 6, count: 3),
            .insert(old: 7, new: 9, count: 2),
            .equal(old: 7, new: 11, count: 4),
            .insert(old: 11, new: 15, count: 1),
        ]),
]

// MARK: - Helpers


private func randomArray(_ rng: inout SeededGenerator, maxCount: Int, alphabet: Int) -> [Int] {
    let count = Int(rng.next() % UInt64(maxCount + 1))
    return (0..<count).map { _ in Int(rng.next() % UInt64(alphabet)) }
}

/// Walks the edits with cursors into old and new. Every edit must start
/// exactly where the previous one ended (that is how `update_text` consumes
/// them), equal runs must really be equal, and both inputs must be consumed.
private func replayEdits(_ edits: [DiffEdit], old: [Int], new: [Int]) -> (valid: Bool, result: [Int], equalCount: Int) {
    var o = 0, n = 0, equalCount = 0
    var result: [Int] = []
    var valid = true
    for edit in edits {
        switch edit {
        case let .equal(eo, en, count):
            valid = valid && eo == o && en == n && count > 0
                && o + count <= old.count && n + count <= new.count
                && old[o..<o + count] == new[n..<n + count]
            guard valid else { return (false, result, equalCount) }
            result += old[o..<o + count]
            o += count; n += count; equalCount += count
        case let .delete(eo, count, en):
            valid = valid && eo == o && en == n && count > 0 && o + count <= old.count
            guard valid else { return (false, result, equalCount) }
            o += count
        case let .insert(eo, en, count):
            valid = valid && eo == o && en == n && count > 0 && n + count <= new.count
            guard valid else { return (false, result, equalCount) }
            result += new[n..<n + count]
            n += count
        }
    }
    return (valid && o == old.count && n == new.count, result, equalCount)
}

/// Longest common subsequence length by the textbook quadratic DP.
private func lcsLength(_ a: [Int], _ b: [Int]) -> Int {
    var prev = [Int](repeating: 0, count: b.count + 1)
    for i in 0..<a.count {
        var row = [Int](repeating: 0, count: b.count + 1)
        for j in 0..<b.count {
            row[j + 1] = a[i] == b[j] ? prev[j] + 1 : max(prev[j + 1], row[j])
        }
        prev = row
    }
    return prev[b.count]
}
