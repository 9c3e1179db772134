/// A leaf of plain elements kept as bytes: about 2 bytes an element of typed
/// text, where a ``SequenceElement`` takes 64.
///
/// A loaded document's sequences are nearly all plain elements (typed
/// characters, list items), and as elements they cost ten times the memory
/// Rust 0.11's op store does. So a load packs each leaf it fills
/// (``SequenceTree/append(_:after:)``); reads decode what they need in
/// place; the first write to a packed leaf unpacks it
/// (``SequenceTree/unpack(_:)``), so edits work on elements as before.
///
/// An element is plain when an insert op of a scalar made it, nothing
/// updated it, it is no mark anchor, its insert key fits the element's
/// packed form (``SequenceElement/reference``), and at most one op, a
/// delete, succeeded it.
///
/// Layout (numbers are LEB128 unless a byte): the element count, the run
/// count and the deleted count (a byte each), the leaf's units; the runs
/// (actor, first counter, length, and the first element's key as actor
/// and counter: within a run, ids are consecutive and each element went
/// after the one before); the deleted elements (index byte, the delete's
/// actor and counter); then each element's value (``PackedValue``).
///
/// Reads the tree makes per edit are `@inline(never) @_effects(readonly)`:
/// seen to allocate, they made every edit copy the tree it reads through a
/// pointer (docs/decisions.md, "In-memory op set").
struct PackedLeaf: Sendable {
    private let bytes: ArraySlice<UInt8>

    /// One element's fields as the bytes hold them.
    struct Entry {
        var id: OpId
        var reference: OpId
        /// The delete that succeeded the element's insert op, if any.
        var deletedBy: OpId?
        /// Where the element's value starts.
        var value: Int
    }

    /// A leaf's bytes as ``append(_:_:to:)`` wrote them, in its tree's
    /// ``PackedArena``.
    init(bytes: ArraySlice<UInt8>) {
        assert(bytes.count >= 4 && Int(bytes[bytes.startIndex]) > 0, "no packed leaf")
        self.bytes = bytes
    }

    /// What the header of a leaf's packed form holds, and the form's size:
    /// worked out in one pass before the arena makes room for it.
    struct Layout {
        var runs = 0
        var deleted = 0
        var units = 0
        var size = 3
    }

    /// The layout of the packed form of `elements`, or nil if any element is not plain.
    ///
    /// Elements are read through a pointer, field by field: a load packs
    /// every leaf it fills, and each element passed or bound whole was
    /// copied (its value and lists retained and released), which made
    /// packing half the build of a long text.
    static func layout(of elements: UnsafeBufferPointer<SequenceElement>) -> Layout? {
        guard let base = elements.baseAddress, !elements.isEmpty, elements.count <= Int(UInt8.max) else { return nil }
        var layout = Layout(), runLength = 0
        var previous = OpId.root
        for index in elements.indices {
            let element = base + index
            guard SequenceElement.isPlain(element) else { return nil }
            let id = element.pointee.id, reference = element.pointee.reference.unsafelyUnwrapped
            if index == 0 || !Self.continues(id, after: previous, reference: reference) {
                if runLength > 0 { layout.size += LEB128.unsignedSize(UInt64(runLength)) }
                runLength = 0
                layout.runs += 1
                layout.size += id.packedSize + reference.packedSize
            }
            runLength += 1
            if let deletedBy = element.pointee.successors.onlyNonIncrement {
                layout.deleted += 1
                layout.size += 1 + deletedBy.packedSize
            }
            layout.size += PackedValue.size(of: element.pointee.value)
            layout.units += Int(element.pointee.units)
            previous = id
        }
        layout.size += LEB128.unsignedSize(UInt64(runLength)) + LEB128.unsignedSize(UInt64(layout.units))
        return layout
    }

    /// Appends the packed form of `elements`, whose ``layout(of:)`` is `layout`, to `out`.
    static func append<Sink: ByteSink>(_ elements: UnsafeBufferPointer<SequenceElement>, _ layout: Layout, to out: inout Sink) {
        guard let base = elements.baseAddress else { return }
        out.append(UInt8(elements.count))
        out.append(UInt8(layout.runs))
        out.append(UInt8(layout.deleted))
        LEB128.appendUnsigned(UInt64(layout.units), to: &out)
        Self.appendRuns(of: elements, to: &out)
        for index in elements.indices {
            if let by = (base + index).pointee.successors.onlyNonIncrement {
                out.append(UInt8(index))
                by.appendPacked(to: &out)
            }
        }
        for index in elements.indices { PackedValue.append((base + index).pointee.value, to: &out) }
    }

    /// Whether an element `id` with key `reference` extends the run whose last element is `previous`.
    @inline(__always)
    private static func continues(_ id: OpId, after previous: OpId, reference: OpId) -> Bool {
        id.actor == previous.actor && id.counter == previous.counter &+ 1 && reference == previous
    }

    private static func appendRuns<Sink: ByteSink>(of elements: UnsafeBufferPointer<SequenceElement>, to out: inout Sink) {
        guard let base = elements.baseAddress else { return }
        var start = 0
        while start < elements.count {
            var end = start + 1
            while end < elements.count,
                  continues((base + end).pointee.id, after: (base + end - 1).pointee.id,
                            reference: (base + end).pointee.reference.unsafelyUnwrapped) {
                end += 1
            }
            let first = (base + start).pointee.id, reference = (base + start).pointee.reference.unsafelyUnwrapped
            first.appendPacked(to: &out)
            LEB128.appendUnsigned(UInt64(end - start), to: &out)
            reference.appendPacked(to: &out)
            start = end
        }
    }

    // MARK: Reading

    var count: Int { Int(bytes[bytes.startIndex]) }

    /// The number of runs ``forEachRun(_:)`` calls its body with.
    var runCount: Int { Int(bytes[bytes.startIndex + 1]) }

    /// The total width of the visible elements.
    var units: Int {
        bytes.withUnsafeBufferPointer { bytes in
            var cursor = 3
            return Int(LEB128.readTrusted(bytes, at: &cursor))
        }
    }

    /// Calls `body` with each element's index and id, in order, reading the runs alone.
    func forEachId(_ body: (Int, OpId) -> Void) {
        var index = 0
        forEachRun { first, length in
            for offset in 0..<length {
                body(index, OpId(counter: first.counter &+ UInt32(offset), actor: first.actor))
                index += 1
            }
        }
    }

    /// Calls `body` with each run's first id and length.
    func forEachRun(_ body: (OpId, Int) -> Void) {
        scanRuns { first, length in
            body(first, length)
            return true
        }
    }

    /// The index of the element `id`, if the leaf holds it.
    @inline(never) @_effects(readonly)
    func index(of id: OpId) -> Int? {
        var index = 0
        var found: Int?
        scanRuns { first, length in
            if id.actor == first.actor, id.counter >= first.counter, id.counter - first.counter < UInt32(length) {
                found = index + Int(id.counter - first.counter)
                return false
            }
            index += length
            return true
        }
        return found
    }

    /// Calls `body` with each run's first id and length until it returns false.
    private func scanRuns(_ body: (OpId, Int) -> Bool) {
        bytes.withUnsafeBufferPointer { bytes in
            var cursor = 3
            _ = LEB128.readTrusted(bytes, at: &cursor)
            for _ in 0..<Int(bytes[1]) {
                let run = Self.readRun(bytes, at: &cursor)
                if !body(run.first, run.length) { return }
            }
        }
    }

    /// The id of the element at `index`.
    @inline(never) @_effects(readonly)
    func id(at index: Int) -> OpId {
        var found = OpId.root
        var start = 0
        scanRuns { first, length in
            if index < start + length {
                found = OpId(counter: first.counter &+ UInt32(index - start), actor: first.actor)
                return false
            }
            start += length
            return true
        }
        return found
    }

    /// Calls `body` with each element's fields in order, and the bytes its
    /// value is read from, until it returns false.
    func forEachEntry(_ body: (Entry, UnsafeBufferPointer<UInt8>) -> Bool) {
        bytes.withUnsafeBufferPointer { bytes in
            var runCursor = 3
            _ = LEB128.readTrusted(bytes, at: &runCursor)
            var deletedCursor = runCursor
            for _ in 0..<Int(bytes[1]) { _ = Self.readRun(bytes, at: &deletedCursor) }
            var valueCursor = deletedCursor
            for _ in 0..<Int(bytes[2]) { _ = Self.readDeleted(bytes, at: &valueCursor) }
            var deletedLeft = Int(bytes[2])
            var nextDeleted = deletedLeft > 0 ? Self.readDeleted(bytes, at: &deletedCursor) : nil
            var index = 0
            for _ in 0..<Int(bytes[1]) {
                let run = Self.readRun(bytes, at: &runCursor)
                for offset in 0..<run.length {
                    let counter = run.first.counter &+ UInt32(offset)
                    var entry = Entry(id: OpId(counter: counter, actor: run.first.actor),
                                      reference: offset == 0 ? run.reference : OpId(counter: counter &- 1, actor: run.first.actor),
                                      deletedBy: nil, value: valueCursor)
                    if let deleted = nextDeleted, deleted.index == index {
                        entry.deletedBy = deleted.by
                        deletedLeft -= 1
                        nextDeleted = deletedLeft > 0 ? Self.readDeleted(bytes, at: &deletedCursor) : nil
                    }
                    PackedValue.skip(bytes, at: &valueCursor)
                    if !body(entry, bytes) { return }
                    index += 1
                }
            }
        }
    }

    /// Appends the UTF-8 of the visible elements' text (U+FFFC for a
    /// value that is no string) without decoding them.
    func appendText(to utf8: inout [UInt8]) {
        forEachEntry { entry, bytes in
            guard entry.deletedBy == nil else { return true }
            if let scalar = PackedValue.scalarUTF8(bytes, at: entry.value) {
                utf8.append(contentsOf: scalar)
            } else if case .string(let string) = { var cursor = entry.value; return PackedValue.read(bytes, at: &cursor) }() {
                utf8.append(contentsOf: string.utf8)
            } else {
                utf8.append(contentsOf: TextWidth.objectReplacement.utf8)
            }
            return true
        }
    }

    /// The index of the visible element covering unit `offset` of the
    /// leaf, and the units before it, read from the bytes: a read by
    /// index decodes one element, not the leaf.
    @inline(never) @_effects(readonly)
    func element(coveringUnit offset: Int, under rule: WidthRule) -> (index: Int, start: Int)? {
        var result: (index: Int, start: Int)?
        var index = 0, start = 0
        forEachEntry { entry, bytes in
            let units = Int(Self.units(of: entry, in: bytes, under: rule))
            if offset < start + units { result = (index, start); return false }
            start += units
            index += 1
            return true
        }
        return result
    }

    /// The width of an element under `rule`, read from its entry.
    static func units(of entry: Entry, in bytes: UnsafeBufferPointer<UInt8>, under rule: WidthRule) -> Int32 {
        if entry.deletedBy != nil { return 0 }
        if !rule.isText || bytes[entry.value] < 0x80 { return 1 }
        var cursor = entry.value
        return rule.units(action: .set, value: PackedValue.read(bytes, at: &cursor))
    }

    /// The element an entry describes, as a ``SequenceElement`` with its width under `rule`.
    static func element(_ entry: Entry, in bytes: UnsafeBufferPointer<UInt8>, under rule: WidthRule) -> SequenceElement {
        var cursor = entry.value
        let value = PackedValue.read(bytes, at: &cursor)
        var element = SequenceElement(id: entry.id, reference: entry.reference, action: .set, value: value, expand: false,
                                      markName: nil, successors: entry.deletedBy.map { SuccessorList(only: $0) } ?? SuccessorList())
        element.units = entry.deletedBy == nil ? rule.units(ofSet: value) : 0
        return element
    }

    /// The element at `index`, decoded.
    @inline(never) @_effects(readonly)
    func element(at index: Int, under rule: WidthRule) -> SequenceElement {
        var result: SequenceElement?
        var position = 0
        forEachEntry { entry, bytes in
            if position == index { result = Self.element(entry, in: bytes, under: rule); return false }
            position += 1
            return true
        }
        return result!
    }

    /// The elements, decoded, in an array of at least `capacity`.
    @inline(never) @_effects(readonly)
    func elements(under rule: WidthRule, capacity: Int = 0) -> [SequenceElement] {
        var elements: [SequenceElement] = []
        elements.reserveCapacity(Swift.max(capacity, count))
        decode(into: &elements, under: rule)
        return elements
    }

    /// Replaces the contents of `elements` with the elements, decoded: a
    /// walk over many leaves reuses one buffer.
    @inline(never)
    func decode(into elements: inout [SequenceElement], under rule: WidthRule) {
        elements.removeAll(keepingCapacity: true)
        forEachEntry { entry, bytes in
            elements.append(Self.element(entry, in: bytes, under: rule))
            return true
        }
    }

    /// The width of the element at `index`.
    @inline(never) @_effects(readonly)
    func units(at index: Int, under rule: WidthRule) -> Int32 {
        var result: Int32 = 0
        var position = 0
        forEachEntry { entry, bytes in
            if position == index { result = Self.units(of: entry, in: bytes, under: rule); return false }
            position += 1
            return true
        }
        return result
    }

    /// The total width of the elements before `index`.
    @inline(never) @_effects(readonly)
    func units(before index: Int, under rule: WidthRule) -> Int {
        var total = 0
        var position = 0
        forEachEntry { entry, bytes in
            guard position < index else { return false }
            total += Int(Self.units(of: entry, in: bytes, under: rule))
            position += 1
            return true
        }
        return total
    }

    /// The index of the last visible element, if any.
    @inline(never) @_effects(readonly)
    func lastVisibleIndex(under rule: WidthRule) -> Int? {
        var last: Int?
        var position = 0
        forEachEntry { entry, bytes in
            if Self.units(of: entry, in: bytes, under: rule) > 0 { last = position }
            position += 1
            return true
        }
        return last
    }

    private struct Run {
        var first: OpId
        var length: Int
        var reference: OpId
    }

    private static func readRun(_ bytes: UnsafeBufferPointer<UInt8>, at cursor: inout Int) -> Run {
        let first = OpId.readPacked(bytes, at: &cursor)
        let length = Int(LEB128.readTrusted(bytes, at: &cursor))
        return Run(first: first, length: length, reference: OpId.readPacked(bytes, at: &cursor))
    }

    private static func readDeleted(_ bytes: UnsafeBufferPointer<UInt8>, at cursor: inout Int) -> (index: Int, by: OpId) {
        let index = Int(bytes[cursor])
        cursor += 1
        return (index, OpId.readPacked(bytes, at: &cursor))
    }
}
