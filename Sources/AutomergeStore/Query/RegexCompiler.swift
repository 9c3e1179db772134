/// A parsed pattern.
indirect enum RegexNode {
    case instruction(RegexInstruction)
    case sequence([RegexNode])
    case alternatives([RegexNode])
    case repetition(RegexNode, min: Int, max: Int?)
}

/// Compiles a pattern (see ``LinearRegex``): parses it by recursive descent
/// into ``RegexNode``s, then emits a program of ``RegexInstruction``s.
struct RegexCompiler {
    private let pattern: [Unicode.Scalar]
    private var position = 0
    private var caseInsensitive = false
    private var depth = 0
    private var program: [RegexInstruction] = []

    static func compile(_ pattern: String) throws -> [RegexInstruction] {
        var compiler = RegexCompiler(pattern: Array(pattern.unicodeScalars))
        if compiler.pattern.starts(with: Array("(?i)".unicodeScalars)) {
            compiler.caseInsensitive = true
            compiler.position = 4
            compiler.program = [.caseInsensitive]
        }
        let node = try compiler.alternation()
        guard compiler.position == compiler.pattern.count else { throw compiler.error("unmatched ')'") }
        try compiler.emit(node)
        try compiler.emit(.match)
        return compiler.program
    }

    private init(pattern: [Unicode.Scalar]) { self.pattern = pattern }

    func error(_ reason: String) -> LinearRegex.SyntaxError {
        LinearRegex.SyntaxError(description: "regex: \(reason) at offset \(position)")
    }

    private var peek: Unicode.Scalar? { position < pattern.count ? pattern[position] : nil }

    // MARK: Parsing

    private mutating func alternation() throws -> RegexNode {
        depth += 1
        defer { depth -= 1 }
        guard depth < 100 else { throw error("groups nested too deeply") }
        var branches = [try sequence()]
        while peek == "|" {
            position += 1
            branches.append(try sequence())
        }
        return branches.count == 1 ? branches[0] : .alternatives(branches)
    }

    private mutating func sequence() throws -> RegexNode {
        var items: [RegexNode] = []
        while let scalar = peek, scalar != "|", scalar != ")" {
            items.append(try quantified(try atom()))
        }
        return .sequence(items)
    }

    private mutating func atom() throws -> RegexNode {
        let scalar = pattern[position]
        position += 1
        switch scalar {
        case "(": return try group()
        case "[": return .instruction(.set(try characterClass()))
        case ".": return .instruction(.any)
        case "^": return .instruction(.start)
        case "$": return .instruction(.end)
        case "\\": return .instruction(try escape())
        case "*", "+", "?": throw error("nothing to repeat")
        default: return .instruction(.scalar(caseInsensitive ? RegexSet.lowercase(scalar) : scalar))
        }
    }

    private mutating func group() throws -> RegexNode {
        if peek == "?" {
            let rest = Array(pattern[position...])
            func starts(_ prefix: String) -> Bool { rest.starts(with: Array(prefix.unicodeScalars)) }
            if starts("?:") {
                position += 2
            } else if (starts("?<") || starts("?P<")) && !starts("?<=") && !starts("?<!") {
                guard let close = pattern[position...].firstIndex(of: ">") else { throw error("unterminated group name") }
                position = close + 1
            } else {
                throw error("lookaround, inline flags and other '(?' groups are not supported")
            }
        }
        let node = try alternation()
        guard peek == ")" else { throw error("missing ')'") }
        position += 1
        return node
    }

    private mutating func quantified(_ node: RegexNode) throws -> RegexNode {
        var node = node
        while let scalar = peek {
            let bounds: (Int, Int?)
            switch scalar {
            case "*": bounds = (0, nil)
            case "+": bounds = (1, nil)
            case "?": bounds = (0, 1)
            case "{":
                guard let counted = try countedBounds() else { return node }
                bounds = counted
            default: return node
            }
            if scalar != "{" { position += 1 }
            if peek == "?" { position += 1 } else if peek == "+" { throw error("possessive quantifiers are not supported") }
            node = .repetition(node, min: bounds.0, max: bounds.1)
        }
        return node
    }

    /// `{n}`, `{n,}` or `{n,m}` at the current position; nil (a literal
    /// brace, as PCRE reads it) when it is not one.
    private mutating func countedBounds() throws -> (Int, Int?)? {
        var cursor = position + 1
        func number() -> Int? {
            var value: Int?
            while cursor < pattern.count, let digit = Int(String(pattern[cursor])), pattern[cursor].isASCII {
                value = min((value ?? 0) * 10 + digit, 100_000)
                cursor += 1
            }
            return value
        }
        guard let low = number() else { return nil }
        var high: Int? = low
        if cursor < pattern.count, pattern[cursor] == "," {
            cursor += 1
            high = number()
        }
        guard cursor < pattern.count, pattern[cursor] == "}" else { return nil }
        guard low <= 1000, (high ?? low) <= 1000 else { throw error("repetition counts above 1000 are not supported") }
        guard high.map({ $0 >= low }) ?? true else { throw error("{\(low),\(high!)} has its bounds reversed") }
        position = cursor + 1
        return (low, high)
    }

    private mutating func escape() throws -> RegexInstruction {
        guard let scalar = peek else { throw error("'\\' at the end") }
        position += 1
        switch scalar {
        case "d", "w", "s", "D", "W", "S":
            let kind = Character(String(scalar).lowercased())
            return .set(RegexSet(items: [.builtin(kind, negated: kind != Character(String(scalar)))]))
        case "b": return .wordBoundary(true)
        case "B": return .wordBoundary(false)
        default:
            let literal = try escapedScalar(scalar)
            return .scalar(caseInsensitive ? RegexSet.lowercase(literal) : literal)
        }
    }

    /// The scalar an escape other than a class stands for.
    private mutating func escapedScalar(_ scalar: Unicode.Scalar) throws -> Unicode.Scalar {
        switch scalar {
        case "n": return "\n"
        case "t": return "\t"
        case "r": return "\r"
        case "f": return "\u{0C}"
        case "v": return "\u{0B}"
        case "0": return "\0"
        case "x", "u":
            var digits = ""
            if peek == "{" {
                position += 1
                while let next = peek, next != "}" { digits.unicodeScalars.append(next); position += 1 }
                guard peek == "}" else { throw error("unterminated \\\(scalar){") }
                position += 1
            } else {
                let count = scalar == "x" ? 2 : 4
                guard position + count <= pattern.count else { throw error("\\\(scalar) needs \(count) hex digits") }
                digits = String(String.UnicodeScalarView(pattern[position..<position + count]))
                position += count
            }
            guard digits.count <= 8, let value = UInt32(digits, radix: 16), let result = Unicode.Scalar(value) else {
                throw error("invalid \\\(scalar) escape")
            }
            return result
        case _ where scalar.properties.isAlphabetic || ("1"..."9").contains(scalar):
            throw error("'\\\(scalar)' is not supported (backreferences and other escapes)")
        default:
            return scalar
        }
    }

    private mutating func characterClass() throws -> RegexSet {
        var set = RegexSet(caseInsensitive: caseInsensitive)
        if peek == "^" {
            set.negated = true
            position += 1
        }
        var first = true
        while let scalar = peek, scalar != "]" || first {
            first = false
            position += 1
            var low = scalar
            if scalar == "\\" {
                guard let next = peek else { break }
                if "dwsDWS".unicodeScalars.contains(next) {
                    position += 1
                    let kind = Character(String(next).lowercased())
                    set.items.append(.builtin(kind, negated: kind != Character(String(next))))
                    continue
                }
                position += 1
                low = try escapedScalar(next)
            }
            var high = low
            if peek == "-", position + 1 < pattern.count, pattern[position + 1] != "]" {
                position += 1
                high = pattern[position]
                position += 1
                if high == "\\" {
                    guard let next = peek else { break }
                    position += 1
                    high = try escapedScalar(next)
                }
                guard low.value <= high.value else { throw error("range out of order in a class") }
            }
            set.items.append(.range(low.value, high.value))
        }
        guard peek == "]" else { throw error("missing ']'") }
        position += 1
        return set
    }

    // MARK: Emitting

    private mutating func emit(_ instruction: RegexInstruction) throws {
        guard program.count < LinearRegex.maximumProgramSize else {
            throw error("the pattern is too large (more than \(LinearRegex.maximumProgramSize) instructions)")
        }
        program.append(instruction)
    }

    private mutating func emit(_ node: RegexNode) throws {
        switch node {
        case .instruction(let instruction):
            try emit(instruction)
        case .sequence(let items):
            for item in items { try emit(item) }
        case .alternatives(let branches):
            var jumps: [Int] = []
            for (index, branch) in branches.enumerated() {
                if index < branches.count - 1 {
                    let split = program.count
                    try emit(.split(split + 1, 0))
                    try emit(branch)
                    jumps.append(program.count)
                    try emit(.jump(0))
                    program[split] = .split(split + 1, program.count)
                } else {
                    try emit(branch)
                }
            }
            for jump in jumps { program[jump] = .jump(program.count) }
        case .repetition(let body, let min, let max):
            for _ in 0..<min { try emit(body) }
            if let max {
                var splits: [Int] = []
                for _ in min..<max {
                    splits.append(program.count)
                    try emit(.split(program.count + 1, 0))
                    try emit(body)
                }
                for split in splits { program[split] = .split(split + 1, program.count) }
            } else {
                let loop = program.count
                try emit(.split(loop + 1, 0))
                try emit(body)
                try emit(.jump(loop))
                program[loop] = .split(loop + 1, program.count)
            }
        }
    }
}
