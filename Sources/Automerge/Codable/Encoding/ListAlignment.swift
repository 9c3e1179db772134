/// Aligns the old elements of a list with the new ones: which to keep, which
/// to delete, which to insert. Greedy Myers (shortest edit script), bounded
/// so that a wholesale rewrite of a long list stays cheap.
enum ListAlignment {
    /// One step of an alignment, in list order.
    enum Step: Equatable {
        case keep(old: Int, new: Int)
        case delete(old: Int)
        case insert(new: Int)
    }

    /// The most edits the search looks for before giving up; memory grows
    /// with its square, time with it times the list length.
    static let maxEdits = 512

    /// A shortest edit script from `oldCount` elements to `newCount`, where
    /// `same(i, j)` says whether old element `i` equals new element `j`.
    /// When more than `maxEdits` edits are needed, every old element is
    /// deleted and every new one inserted (the caller then pairs them up
    /// position by position).
    static func align(oldCount n: Int, newCount m: Int, maxEdits: Int = maxEdits, same: (Int, Int) -> Bool) -> [Step] {
        myers(n, m, maxEdits, same) ?? (0..<n).map { .delete(old: $0) } + (0..<m).map { .insert(new: $0) }
    }

    private static func myers(_ n: Int, _ m: Int, _ maxEdits: Int, _ same: (Int, Int) -> Bool) -> [Step]? {
        let limit = min(n + m, maxEdits)
        let offset = limit + 1
        // v[k + offset]: furthest x reached on diagonal k = x - y.
        var v = [Int](repeating: 0, count: 2 * limit + 3)
        // trace[d]: v for diagonals -d-1...d+1 as round d found it.
        var trace: [[Int]] = []
        for d in 0...limit {
            trace.append(Array(v[(offset - d - 1)...(offset + d + 1)]))
            for k in stride(from: -d, through: d, by: 2) {
                var x = (k == -d || (k != d && v[k - 1 + offset] < v[k + 1 + offset])) ? v[k + 1 + offset] : v[k - 1 + offset] + 1
                var y = x - k
                while x < n, y < m, same(x, y) {
                    x += 1
                    y += 1
                }
                v[k + offset] = x
                if x >= n, y >= m { return backtrack(trace, n, m, d) }
            }
        }
        return nil
    }

    private static func backtrack(_ trace: [[Int]], _ n: Int, _ m: Int, _ edits: Int) -> [Step] {
        var steps: [Step] = []
        steps.reserveCapacity(n + m)
        var x = n
        var y = m
        for d in stride(from: edits, through: 0, by: -1) {
            let window = trace[d]
            func at(_ k: Int) -> Int { window[k + d + 1] }
            let k = x - y
            let previousK = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1
            let previousX = d == 0 ? 0 : at(previousK)
            let previousY = previousX - previousK
            while x > previousX, y > previousY {
                steps.append(.keep(old: x - 1, new: y - 1))
                x -= 1
                y -= 1
            }
            if d > 0 {
                steps.append(x == previousX ? .insert(new: y - 1) : .delete(old: x - 1))
                x = previousX
                y = previousY
            }
        }
        return steps.reversed()
    }
}
