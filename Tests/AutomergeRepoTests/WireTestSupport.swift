@testable import AutomergeRepoProtocol

/// The bytes spelled by hex digits (whitespace ignored); traps on a typo, which is a test's bug.
func hex(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }.map { UInt8(String($0), radix: 16)! }
    precondition(digits.count.isMultiple(of: 2), "odd number of hex digits in \(text)")
    return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
}

/// The lowercase hex digits of `bytes`.
func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

/// The CBOR value `text` as a text string.
func text(_ value: String) -> CBORValue { .textString(value) }

/// The CBOR array of unsigned integers `values`.
func uints(_ values: ClosedRange<UInt64>) -> CBORValue { .array(values.map { .unsigned($0) }) }

/// [1, [2, 3], [4, 5]], the nested array of several Appendix A examples.
let nestedArray: CBORValue = .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])
