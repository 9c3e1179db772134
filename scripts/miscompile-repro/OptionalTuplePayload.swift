// Swift 6.3.1 miscompiles `element(at:)` below with -O (also -Osize,
// -Ounchecked): it returns a value whose fields are mostly garbage. See
// README.md next to this file.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Too large to be passed in registers: SIL's LoadableByAddress pass moves it to memory.
struct Element {
    var id: Int
    var value: String
    var updates: [Int]
    var tag: Int
    var units: Int
}

struct Visible {
    var element: Element
    var ops: [Int]
    var units: Int
}

struct NotFound: Error {}

struct Store {
    var elements: [Element]

    /// The element at `index` with its position, or nil: an Optional of a
    /// tuple holding the large struct, returned by a call that is not inlined.
    @inline(never)
    func visible(at index: Int) -> (Visible, start: Int)? {
        guard index >= 0, index < elements.count else { return nil }
        let element = elements[index]
        return (Visible(element: element, ops: element.updates, units: element.units), index)
    }

    /// The miscompiled shape: the tuple destructured in a `guard let` with a
    /// wildcard, and its large member returned.
    @inline(never)
    func element(at index: Int) throws -> Visible {
        guard let (element, _) = visible(at: index) else { throw NotFound() }
        return element
    }
}

let store = Store(elements: (0..<3).map { Element(id: 1000 + $0, value: "v\($0)", updates: [$0], tag: 4242, units: 7) })
// The index comes from the command line so that the optimizer cannot fold the call away.
let visible = try store.element(at: CommandLine.arguments.count)
// Only integer fields are read: the String and arrays of a miscompiled result are garbage pointers.
let expected = (id: 1001, tag: 4242, elementUnits: 7, units: 7)
let actual = (id: visible.element.id, tag: visible.element.tag, elementUnits: visible.element.units, units: visible.units)
if actual == expected {
    print("correct: \(actual)")
    exit(0)
}
print("MISCOMPILED: expected \(expected), got \(actual)")
exit(1)
