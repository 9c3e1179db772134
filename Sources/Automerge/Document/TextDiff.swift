// Myers' O((N+M)D) difference algorithm, linear-space variant, reproducing the
// exact hook-call sequence of the Rust reference (automerge's
// `text_diff/myers.rs`, itself derived from the `similar` crate).
//
// Why exactness matters: `update_text` turns every hook call into a
// `splice_text`, and the resulting ops feed the change hash. Any other minimal
// edit script (even one of the same length) would produce different ops, so
// this file deliberately keeps every quirk of the reference:
//
// * Common prefix and suffix are stripped at *every* level of the
//   divide-and-conquer, not just once. A non-empty prefix is reported before
//   the middle part, a non-empty suffix after it.
// * The middle snake search explores diagonals from k = +d down to k = -d,
//   forward pass before backward pass for each d, and returns the first
//   overlap it meets. Between two equally far-reaching predecessors it takes
//   the step from diagonal k-1 (`v[k-1] < v[k+1]` is a strict comparison).
//   Which overlap is met first decides between equally short scripts; with
//   this order e.g. "X" -> "Y" yields insert-then-delete, not the reverse.
// * The forward pass returns the snake's *start* point; the backward pass
//   returns the snake's end point mapped back to forward coordinates.
// * Diagonals are not clamped to the edit grid: furthest-reaching values may
//   lie outside it (x > n or y < 0). The reference works with unsigned
//   integers, so a negative y fails its `y < m` test; we test `y >= 0`
//   explicitly to get the same outcome with signed arithmetic.
// * The two frontier arrays are allocated once, sized for the whole input, and
//   reused by every sub-problem without clearing. That is sound because each
//   round only reads slots written earlier in the same search (the reference
//   relies on this too), and only `v[1]` needs seeding.
// * The search is bounded by ceil((n+m)/2) + 1 rounds. The upstream `similar`
//   crate also stops at a wall-clock deadline; automerge removed that
//   parameter, so there is no deadline here either (the search is never cut
//   short by time, and the output depends only on the inputs). The "no snake
//   found" fallback (delete everything, then insert everything) is kept for
//   fidelity, although the round bound guarantees a snake is always found.
//
// Recursion: the reference recurses (first half, then second half). The
// depth there is only logarithmic in D, but we use an explicit work stack
// anyway so that no input can exhaust the thread stack; pushing the trailing
// `equal` below the two halves keeps the emission order identical.

/// One hook call made by the diff, in the reference's argument order.
///
/// Indices are positions in the original `old` / `new` arrays (never shifted
/// by earlier edits): `.delete` carries the position in `new` at which the
/// deletion happens, `.insert` the position in `old` before which it happens.
/// The reference's `replace` hook is not represented: plain Myers never calls
/// it (only automerge's `Replace` wrapper, used by the block/span diff, does).
enum DiffEdit: Equatable {
    /// `count` elements starting at `old` in the old array equal those at `new`.
    case equal(old: Int, new: Int, count: Int)
    /// `count` elements starting at `old` are removed.
    case delete(old: Int, count: Int, new: Int)
    /// `count` elements starting at `new` in the new array are added.
    case insert(old: Int, new: Int, count: Int)
}

enum TextDiff {
    /// The edit script turning `old` into `new`, as the ordered list of hook
    /// calls Rust's `myers::diff` makes for the same inputs.
    ///
    /// Time O((N+M)·D), memory O(N+M) (plus the result).
    static func myers<T: Equatable>(_ old: [T], _ new: [T]) -> [DiffEdit] {
        var search = MyersSearch(old: old, new: new)
        return search.run()
    }
}

/// Furthest-reaching x per diagonal k, for k in [-offset, offset).
private struct Frontier {
    private var slots: [Int]
    private let offset: Int

    init(maxD: Int) {
        offset = maxD
        slots = Array(repeating: 0, count: 2 * maxD)
    }

    var capacity: Int { slots.count }

    subscript(k: Int) -> Int {
        get { slots[k + offset] }
        set { slots[k + offset] = newValue }
    }
}

/// Round bound of the middle-snake search; also sizes the frontiers. The
/// optimal script has D <= n + m edits and the two searches meet after at most
/// ceil(D/2) rounds; the reference adds one for safety.
private func roundBound(_ n: Int, _ m: Int) -> Int {
    (n + m + 1) / 2 + 1
}

private struct MyersSearch<T: Equatable> {
    let old: [T]
    let new: [T]
    var forward: Frontier
    var backward: Frontier

    init(old: [T], new: [T]) {
        self.old = old
        self.new = new
        let bound = roundBound(old.count, new.count)
        forward = Frontier(maxD: bound)
        backward = Frontier(maxD: bound)
    }

    /// Pending work. `trailingEqual` is the common suffix of a range whose
    /// middle was split; it must be reported after both halves.
    private enum Work {
        case range(oldLo: Int, oldHi: Int, newLo: Int, newHi: Int)
        case trailingEqual(old: Int, new: Int, count: Int)
    }

    mutating func run() -> [DiffEdit] {
        var edits: [DiffEdit] = []
        var stack: [Work] = [.range(oldLo: 0, oldHi: old.count, newLo: 0, newHi: new.count)]
        while let work = stack.popLast() {
            switch work {
            case let .trailingEqual(o, n, count):
                edits.append(.equal(old: o, new: n, count: count))
            case .range(var oldLo, var oldHi, var newLo, var newHi):
                let prefix = commonPrefix(oldLo, oldHi, newLo, newHi)
                if prefix > 0 {
                    edits.append(.equal(old: oldLo, new: newLo, count: prefix))
                }
                oldLo += prefix
                newLo += prefix

                let suffix = commonSuffix(oldLo, oldHi, newLo, newHi)
                oldHi -= suffix
                newHi -= suffix
                // After stripping, oldHi/newHi are where the suffix starts.

                if oldLo >= oldHi && newLo >= newHi {
                    // Nothing differs in the middle.
                } else if newLo >= newHi {
                    edits.append(.delete(old: oldLo, count: oldHi - oldLo, new: newLo))
                } else if oldLo >= oldHi {
                    edits.append(.insert(old: oldLo, new: newLo, count: newHi - newLo))
                } else if let (xMid, yMid) = middleSnake(oldLo, oldHi, newLo, newHi) {
                    // LIFO: the first half must be processed first, the
                    // suffix after the second half.
                    if suffix > 0 {
                        stack.append(.trailingEqual(old: oldHi, new: newHi, count: suffix))
                    }
                    stack.append(.range(oldLo: xMid, oldHi: oldHi, newLo: yMid, newHi: newHi))
                    stack.append(.range(oldLo: oldLo, oldHi: xMid, newLo: newLo, newHi: yMid))
                    continue
                } else {
                    edits.append(.delete(old: oldLo, count: oldHi - oldLo, new: newLo))
                    edits.append(.insert(old: oldLo, new: newLo, count: newHi - newLo))
                }

                if suffix > 0 {
                    edits.append(.equal(old: oldHi, new: newHi, count: suffix))
                }
            }
        }
        return edits
    }

    /// Length of the common run at the start of old[oldLo..<oldHi] and
    /// new[newLo..<newHi].
    private func commonPrefix(_ oldLo: Int, _ oldHi: Int, _ newLo: Int, _ newHi: Int) -> Int {
        let limit = min(oldHi - oldLo, newHi - newLo)
        var count = 0
        while count < limit && new[newLo + count] == old[oldLo + count] {
            count += 1
        }
        return count
    }

    /// Length of the common run at the end of old[oldLo..<oldHi] and
    /// new[newLo..<newHi].
    private func commonSuffix(_ oldLo: Int, _ oldHi: Int, _ newLo: Int, _ newHi: Int) -> Int {
        let limit = min(oldHi - oldLo, newHi - newLo)
        var count = 0
        while count < limit && new[newHi - 1 - count] == old[oldHi - 1 - count] {
            count += 1
        }
        return count
    }

    /// Finds a split point (absolute indices into old/new) lying on an
    /// optimal path through the grid old[oldLo..<oldHi] × new[newLo..<newHi].
    /// Both ranges are non-empty and differ at both ends.
    private mutating func middleSnake(_ oldLo: Int, _ oldHi: Int, _ newLo: Int, _ newHi: Int) -> (Int, Int)? {
        let n = oldHi - oldLo
        let m = newHi - newLo
        // D has the parity of delta (Lemma 1 of Myers' paper), which decides
        // whether the overlap is detected on a forward or a backward step.
        let delta = n - m
        let odd = delta & 1 == 1

        // Seeds the virtual starting points (0, -1) forward and (n, m + 1)
        // backward; all other slots read in round d were written in round d-1
        // of this same call, so stale values from earlier calls never matter.
        forward[1] = 0
        backward[1] = 0

        let rounds = roundBound(n, m)
        precondition(forward.capacity >= rounds && backward.capacity >= rounds)

        for d in 0..<rounds {
            // Forward search from the top-left corner, diagonal k = x - y.
            var k = d
            while k >= -d {
                var x: Int
                if k == -d || (k != d && forward[k - 1] < forward[k + 1]) {
                    x = forward[k + 1]  // step down: insertion
                } else {
                    x = forward[k - 1] + 1  // step right: deletion
                }
                let y = x - k
                let snakeStart = (x, y)
                if x < n && y >= 0 && y < m {
                    x += commonPrefix(oldLo + x, oldHi, newLo + y, newHi)
                }
                forward[k] = x
                if odd && abs(k - delta) <= d - 1 && x + backward[delta - k] >= n {
                    return (snakeStart.0 + oldLo, snakeStart.1 + newLo)
                }
                k -= 2
            }

            // Backward search from the bottom-right corner; here x and y count
            // elements consumed from the ends, and k' = x - y in that frame
            // corresponds to forward diagonal delta - k'.
            k = d
            while k >= -d {
                var x: Int
                if k == -d || (k != d && backward[k - 1] < backward[k + 1]) {
                    x = backward[k + 1]
                } else {
                    x = backward[k - 1] + 1
                }
                var y = x - k
                if x < n && y >= 0 && y < m {
                    let run = commonSuffix(oldLo, oldLo + n - x, newLo, newLo + m - y)
                    x += run
                    y += run
                }
                backward[k] = x
                if !odd && abs(k - delta) <= d && x + forward[delta - k] >= n {
                    return (n - x + oldLo, m - y + newLo)
                }
                k -= 2
            }
        }
        // Unreachable in practice (see the file comment); kept because the
        // reference has the same fallback.
        return nil
    }
}
