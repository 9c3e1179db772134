/// A list that takes an insert anywhere in time that does not grow with
/// its length: an array while it is short, and past
/// ``segmentedFrom`` elements, segments of at most ``segmentCapacity``.
///
/// The ops of one map key and the successors of one op are kept sorted by
/// op id, and nearly always grow at their end. A peer choosing the actor
/// ids of concurrent changes chooses where in that order each new op
/// sorts, though: n ops that each sort first shifted an array n times, n²
/// work for n ops. Segmented, an insert shifts one segment and the
/// segments' start offsets.
///
/// One word, as an array is: the segmented form lives in a class, copied
/// on write.
struct SegmentedArray<Element>: RandomAccessCollection, MutableCollection {
    /// From this many elements the list is kept in segments.
    static var segmentedFrom: Int { 512 }
    /// The most elements a segment holds; a fuller one is split in two.
    static var segmentCapacity: Int { 512 }

    private enum Storage {
        case flat([Element])
        case segmented(Segments)
    }

    private var storage: Storage

    init() { storage = .flat([]) }

    init(_ elements: [Element]) {
        storage = elements.count < Self.segmentedFrom ? .flat(elements) : .segmented(Segments(elements))
    }

    var startIndex: Int { 0 }

    var endIndex: Int {
        switch storage {
        case .flat(let array): return array.count
        case .segmented(let segments): return segments.count
        }
    }

    subscript(position: Int) -> Element {
        get {
            switch storage {
            case .flat(let array): return array[position]
            case .segmented(let segments):
                let (part, offset) = segments.place(of: position)
                return segments.parts[part][offset]
            }
        }
        _modify {
            switch storage {
            case .flat(var array):
                storage = .flat([])  // the array, uniquely held, changes in place
                defer { storage = .flat(array) }
                yield &array[position]
            case .segmented(var segments):
                storage = .flat([])
                if !isKnownUniquelyReferenced(&segments) { segments = segments.copy() }
                defer { storage = .segmented(segments) }
                let (part, offset) = segments.place(of: position)
                yield &segments.parts[part][offset]
            }
        }
    }

    /// Inserts `element` at `position` (`endIndex` appends).
    mutating func insert(_ element: Element, at position: Int) {
        precondition(position >= 0 && position <= count, "index out of range")
        switch storage {
        case .flat(var array):
            storage = .flat([])
            if position == array.count { array.append(element) } else { array.insert(element, at: position) }
            storage = array.count < Self.segmentedFrom ? .flat(array) : .segmented(Segments(array))
        case .segmented(var segments):
            storage = .flat([])
            if !isKnownUniquelyReferenced(&segments) { segments = segments.copy() }
            segments.insert(element, at: position)
            storage = .segmented(segments)
        }
    }

    /// Adds `element` at the end.
    mutating func append(_ element: Element) { insert(element, at: count) }

    /// The elements as one array.
    var array: [Element] {
        switch storage {
        case .flat(let array): return array
        case .segmented(let segments): return Array(segments.parts.joined())
        }
    }

    /// The length of the longest segment (of the array, unsegmented): what
    /// one insert shifts at most.
    var longestRun: Int {
        switch storage {
        case .flat(let array): return array.count
        case .segmented(let segments): return segments.parts.map(\.count).max() ?? 0
        }
    }

    /// Calls `body` with each element in order, a segment at a time.
    @inline(__always)
    func forEachElement(_ body: (Element) throws -> Void) rethrows {
        switch storage {
        case .flat(let array): for element in array { try body(element) }
        case .segmented(let segments): for part in segments.parts { for element in part { try body(element) } }
        }
    }

    /// The segments and where each starts.
    private final class Segments {
        var parts: [[Element]]
        /// The position of each segment's first element.
        var starts: [Int]

        /// Never empty: a list is segmented only from ``SegmentedArray/segmentedFrom`` elements.
        var count: Int { starts[starts.count - 1] + parts[parts.count - 1].count }

        init(parts: [[Element]], starts: [Int]) {
            self.parts = parts
            self.starts = starts
        }

        convenience init(_ elements: [Element]) {
            let half = SegmentedArray.segmentCapacity / 2
            let parts = stride(from: 0, to: elements.count, by: half).map { Array(elements[$0..<Swift.min($0 + half, elements.count)]) }
            self.init(parts: parts, starts: parts.indices.map { $0 * half })
        }

        func copy() -> Segments { Segments(parts: parts, starts: starts) }

        /// The segment holding `position` and the offset in it; the end
        /// position is placed after the last segment's last element.
        func place(of position: Int) -> (part: Int, offset: Int) {
            precondition(position >= 0 && position <= count, "index out of range")
            var (low, high) = (0, starts.count - 1)
            while low < high {
                let middle = (low + high + 1) / 2
                if starts[middle] <= position { low = middle } else { high = middle - 1 }
            }
            return (low, position - starts[low])
        }

        func insert(_ element: Element, at position: Int) {
            let (part, offset) = place(of: position)
            parts[part].insert(element, at: offset)
            for later in (part + 1)..<starts.count { starts[later] += 1 }
            guard parts[part].count > SegmentedArray.segmentCapacity else { return }
            let half = parts[part].count / 2
            let second = Array(parts[part][half...])
            parts[part].removeSubrange(half...)
            parts.insert(second, at: part + 1)
            starts.insert(starts[part] + half, at: part + 1)
        }
    }
}

/// The segments' class is changed only when uniquely referenced (copied
/// on write first), so copies on other threads never see it change.
extension SegmentedArray: @unchecked Sendable where Element: Sendable {}

extension SegmentedArray: Equatable where Element: Equatable {
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.elementsEqual(rhs) }
}
