import Foundation
import AutomergeConformance
import Testing
@testable import AutomergeStore

/// `$regex` patterns run in time linear in the text and agree with PCRE-style
/// engines (Foundation's ICU here) on the syntax they share.
@Suite("Query: linear-time regex")
struct LinearRegexTests {
    @Test("agrees with NSRegularExpression on random patterns and texts", arguments: [UInt64(1), 2, 3])
    func differential(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        print("regex differential seed: \(seed)")
        for _ in 0..<400 {
            let pattern = Self.randomPattern(&random, depth: 0)
            let reference = try NSRegularExpression(pattern: pattern)
            let regex = try LinearRegex(pattern)
            for _ in 0..<10 {
                let text = String((0..<Int(random.next() % 8)).map { _ in Array("abc\n")[Int(random.next() % 4)] })
                let expected = reference.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
                #expect(regex.firstMatch(in: text) == expected, "pattern \(pattern) on \(text.debugDescription), seed \(seed)")
            }
        }
    }

    static func randomPattern(_ random: inout SeededGenerator, depth: Int) -> String {
        let atoms = ["a", "b", ".", "[ab]", "[^a]", "\\w", "\\s", "^", "$", "\\b"]
        var pattern = ""
        for _ in 0..<(1 + Int(random.next() % 3)) {
            if depth < 2, random.next() % 4 == 0 {
                pattern += "(" + randomPattern(&random, depth: depth + 1) + "|" + randomPattern(&random, depth: depth + 1) + ")"
            } else {
                pattern += atoms[Int(random.next() % UInt64(atoms.count))]
            }
            if !pattern.hasSuffix("^") && !pattern.hasSuffix("$") && !pattern.hasSuffix("\\b") {
                pattern += ["", "", "*", "+", "?", "{1,2}", "{2}"][Int(random.next() % 7)]
            }
        }
        return pattern
    }

    @Test("syntax: classes, escapes, anchors, counted repetition, case-insensitivity")
    func syntax() throws {
        let cases: [(String, String, Bool)] = [
            ("^mi", "mike", true), ("^ke", "mike", false), ("ke$", "mike", true), ("ke$", "mike\n", true),
            ("[a-c]+x", "zzbcax", true), ("[^a-c]x", "ax", false), ("\\d{3}-\\d{4}", "call 555-1234", true),
            ("(?i)MIKE", "Mike", true), ("(?i)[A-Z]+$", "abc", true), ("colou?r", "color", true),
            ("a{2,}", "a", false), ("a{2,}", "xaax", true), ("\\.", "a.b", true), ("\\.", "ab", false),
            ("\\bcat\\b", "a cat!", true), ("\\bcat\\b", "concat", false), ("(?:ab)+c", "ababc", true),
            ("(?<year>\\d{4})", "in 2024", true), ("\\u00e9", "café", true), ("x{2", "x{2", true), ("", "", true),
        ]
        for (pattern, text, expected) in cases {
            #expect(try LinearRegex(pattern).firstMatch(in: text) == expected, "\(pattern) on \(text.debugDescription)")
        }
    }

    @Test("what no linear engine can run, and malformed patterns, are syntax errors")
    func errors() {
        for pattern in ["(a)\\1", "(?=a)", "(?<!a)b", "a++", "(ab", "ab)", "[ab", "*a", "a{2000}", "[z-a]", "\\", "(?s)a",
                        String(repeating: "(", count: 150) + String(repeating: ")", count: 150),
                        "(((a{1000}){1000}){1000})"]
        {
            #expect(throws: LinearRegex.SyntaxError.self, "\(pattern)") { try LinearRegex(pattern) }
        }
    }

    @Test("catastrophic-backtracking patterns finish in linear time")
    func pathological() throws {
        let text = String(repeating: "a", count: 20_000) + "!"
        for pattern in ["(a+)+$", "(a|aa)*b", "(a*)*b", "(.*a){20}b", "^(\\w+\\s?)*$"] {
            #expect(try LinearRegex(pattern).firstMatch(in: text) == false, "\(pattern)")
        }
    }
}
