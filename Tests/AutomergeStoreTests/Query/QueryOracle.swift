import Foundation
@testable import AutomergeStore

/// A brute-force evaluator of Cloudant Query selectors, straight from the
/// rules (see `Selector`), sharing no code with the store's matcher: it
/// reads the selector as JSON each time and uses ICU for `$regex`.
enum Oracle {
    static func withMeta(_ body: BodyValue, id: String) -> BodyValue {
        var map = body.mapValue!
        map["_id"] = .string(id)
        return .map(map)
    }

    static func matches(_ selector: BodyValue, _ document: BodyValue) -> Bool {
        selector.mapValue!.allSatisfy { key, value in
            switch key {
            case "$and": return value.listValue!.allSatisfy { matches($0, document) }
            case "$or": return value.listValue!.contains { matches($0, document) }
            case "$nor": return !value.listValue!.contains { matches($0, document) }
            case "$not": return !matches(value, document)
            default: return field(key.string.split(separator: ".").map(String.init), value, document)
            }
        }
    }

    static func field(_ path: [String], _ condition: BodyValue, _ document: BodyValue) -> Bool {
        if case .map(let entries) = condition, !entries.isEmpty {
            if entries.keys.allSatisfy({ $0.string.hasPrefix("$") }) {
                return entries.allSatisfy { holds($0.key.string, $0.value, lookup(path, in: document)) }
            }
            return entries.allSatisfy { field(path + [$0.key.string], $0.value, document) }
        }
        return holds("$eq", condition, lookup(path, in: document))
    }

    static func lookup(_ path: [String], in document: BodyValue) -> BodyValue? {
        var value = document
        for key in path {
            switch value {
            case .map(let entries): guard let next = entries[ExactString(key)] else { return nil }; value = next
            case .list(let elements): guard let index = Int(key), index >= 0, index < elements.count else { return nil }; value = elements[index]
            default: return nil
            }
        }
        return value
    }

    static func holds(_ op: String, _ operand: BodyValue, _ value: BodyValue?) -> Bool {
        switch op {
        case "$exists": return (value != nil) == operand.boolValue!
        case "$ne": return !holds("$eq", operand, value)
        case "$nin": return !holds("$in", operand, value)
        case "$not": return !operand.mapValue!.allSatisfy { holds($0.key.string, $0.value, value) }
        default:
            guard let value else { return false }
            if direct(op, operand, value) { return true }
            let elementWise = ["$eq", "$lt", "$lte", "$gt", "$gte", "$in", "$mod", "$regex"].contains(op)
            if elementWise, case .list(let elements) = value { return elements.contains { direct(op, operand, $0) } }
            return false
        }
    }

    static func direct(_ op: String, _ operand: BodyValue, _ value: BodyValue) -> Bool {
        switch op {
        case "$eq": return order(value, operand) == 0
        case "$lt": return order(value, operand) < 0
        case "$lte": return order(value, operand) <= 0
        case "$gt": return order(value, operand) > 0
        case "$gte": return order(value, operand) >= 0
        case "$in": return operand.listValue!.contains { order(value, $0) == 0 }
        case "$size": return value.listValue?.count == Int(operand.intValue!)
        case "$mod":
            guard case .int(let number) = value else { return false }
            return number % operand[0]!.intValue! == operand[1]!.intValue!
        case "$regex":
            guard case .string(let string) = value else { return false }
            let regex = try! NSRegularExpression(pattern: operand.stringValue!.replacingOccurrences(of: "(?i)", with: ""),
                                                 options: operand.stringValue!.hasPrefix("(?i)") ? [.caseInsensitive] : [])
            return regex.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) != nil
        case "$elemMatch":
            guard case .list(let elements) = value else { return false }
            let entries = operand.mapValue!
            if entries.keys.allSatisfy({ $0.string.hasPrefix("$") }) {
                return elements.contains { element in entries.allSatisfy { holds($0.key.string, $0.value, element) } }
            }
            return elements.contains { matches(operand, $0) }
        case "$all":
            guard case .list(let elements) = value, let wanted = operand.listValue, !wanted.isEmpty else { return false }
            return wanted.allSatisfy { item in elements.contains { order($0, item) == 0 } }
        default:
            fatalError("oracle: unknown operator \(op)")
        }
    }

    /// CouchDB collation, written out plainly.
    static func order(_ a: BodyValue, _ b: BodyValue) -> Int {
        func rank(_ v: BodyValue) -> Int {
            switch v {
            case .null: return 0
            case .bool(let flag): return flag ? 2 : 1
            case .int, .double: return 3
            case .string: return 4
            case .list: return 5
            case .map: return 6
            }
        }
        func number(_ v: BodyValue) -> Double { v.doubleValue ?? Double(v.intValue!) }
        if rank(a) != rank(b) { return rank(a) < rank(b) ? -1 : 1 }
        switch (a, b) {
        case (.int, _), (.double, _): return number(a) == number(b) ? 0 : number(a) < number(b) ? -1 : 1
        case (.string(let x), .string(let y)):
            let (xs, ys) = (x.unicodeScalars.map(\.value), y.unicodeScalars.map(\.value))
            return xs == ys ? 0 : xs.lexicographicallyPrecedes(ys) ? -1 : 1
        case (.list(let x), .list(let y)):
            for (l, r) in zip(x, y) where order(l, r) != 0 { return order(l, r) }
            return x.count == y.count ? 0 : x.count < y.count ? -1 : 1
        case (.map(let x), .map(let y)):
            let flatten = { (m: [ExactString: BodyValue]) -> BodyValue in
                .list(m.keys.sorted { order(.string($0.string), .string($1.string)) < 0 }.flatMap { [BodyValue.string($0.string), m[$0]!] })
            }
            return order(flatten(x), flatten(y))
        default: return 0
        }
    }
}
