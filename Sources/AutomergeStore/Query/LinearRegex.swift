/// A regular expression that matches in time linear in the text (a Pike
/// virtual machine over a compiled program, as RE2 does), for `$regex`: a
/// selector is input, and a backtracking engine would let one pattern such
/// as `(a+)+$` hang a query.
///
/// The syntax is PCRE's common part: literals, `.` (not a newline), classes
/// `[a-z]` `[^…]`, `\d \w \s \D \W \S \b \B`, escapes `\n \t \r \f \v \xHH
/// \u{…}` and escaped punctuation, anchors `^` (start) and `$` (end, or
/// before a final newline), groups `(…)`, `(?:…)`, `(?<name>…)`,
/// alternation, quantifiers `* + ? {n} {n,} {n,m}` (lazy forms accepted:
/// they change which match is found, not whether one is), and a leading
/// `(?i)` for case-insensitive matching. Backreferences and lookaround,
/// which no linear-time engine can run, are syntax errors. Matching finds
/// a match anywhere in the text, as PCRE's search does.
struct LinearRegex: Equatable, Sendable {
    /// A pattern that cannot be compiled, and why.
    struct SyntaxError: Error, CustomStringConvertible {
        let description: String
    }

    /// The most instructions a pattern may compile to (counted repetition multiplies).
    static let maximumProgramSize = 20_000

    let pattern: String
    let program: [RegexInstruction]

    /// - Throws: ``SyntaxError``.
    init(_ pattern: String) throws {
        self.pattern = pattern
        program = try RegexCompiler.compile(pattern)
    }

    static func == (a: LinearRegex, b: LinearRegex) -> Bool { ExactString(a.pattern) == ExactString(b.pattern) }

    /// Whether the pattern matches somewhere in `text`.
    func firstMatch(in text: String) -> Bool {
        let input = Array(text.unicodeScalars)
        var current = ThreadList(capacity: program.count)
        var next = ThreadList(capacity: program.count)
        for position in 0...input.count {
            addThread(&current, 0, at: position, in: input)
            for pc in current.dense {
                switch program[pc] {
                case .match:
                    return true
                case .scalar(let expected):
                    if position < input.count, program.caseFold(input[position]) == expected {
                        addThread(&next, pc + 1, at: position + 1, in: input)
                    }
                case .any:
                    if position < input.count, input[position] != "\n" { addThread(&next, pc + 1, at: position + 1, in: input) }
                case .set(let set):
                    if position < input.count, set.contains(input[position]) {
                        addThread(&next, pc + 1, at: position + 1, in: input)
                    }
                default:
                    break
                }
            }
            swap(&current, &next)
            next.clear()
        }
        return false
    }

    /// Adds `pc` and everything reachable from it without consuming input.
    private func addThread(_ list: inout ThreadList, _ start: Int, at position: Int, in input: [Unicode.Scalar]) {
        var stack = [start]
        while let pc = stack.popLast() {
            guard list.insert(pc) else { continue }
            switch program[pc] {
            case .jump(let target): stack.append(target)
            case .split(let first, let second): stack.append(second); stack.append(first)
            case .start: if position == 0 { stack.append(pc + 1) }
            case .end:
                if position == input.count || (position == input.count - 1 && input[position] == "\n") { stack.append(pc + 1) }
            case .wordBoundary(let expected):
                let before = position > 0 && RegexSet.isWord(input[position - 1])
                let after = position < input.count && RegexSet.isWord(input[position])
                if (before != after) == expected { stack.append(pc + 1) }
            case .caseInsensitive: stack.append(pc + 1)
            case .match, .scalar, .any, .set: break
            }
        }
    }
}

/// One instruction of a compiled pattern.
enum RegexInstruction: Equatable, Sendable {
    case scalar(Unicode.Scalar)
    case any
    case set(RegexSet)
    case split(Int, Int)
    case jump(Int)
    case start
    case end
    case wordBoundary(Bool)
    /// First instruction of a `(?i)` program: scalars are compared case-folded.
    case caseInsensitive
    case match
}

extension [RegexInstruction] {
    /// `scalar` folded to lowercase when the program is case-insensitive.
    func caseFold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        guard first == .caseInsensitive else { return scalar }
        return RegexSet.lowercase(scalar)
    }
}

/// A set of program counters, in insertion order (a sparse set: insert and
/// clear are O(1), so each step costs the threads it holds).
struct ThreadList {
    private(set) var dense: [Int] = []
    private var sparse: [Int]

    init(capacity: Int) {
        sparse = Array(repeating: 0, count: capacity)
        dense.reserveCapacity(capacity)
    }

    /// Inserts `pc`; false when it was there.
    mutating func insert(_ pc: Int) -> Bool {
        let slot = sparse[pc]
        if slot < dense.count, dense[slot] == pc { return false }
        sparse[pc] = dense.count
        dense.append(pc)
        return true
    }

    mutating func clear() { dense.removeAll(keepingCapacity: true) }
}
