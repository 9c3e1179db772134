/// Reads of the current state (clock nil) or of a point in history.
extension OpSet {
    /// The visible ops of a map key, in op id order (the winner last).
    func visibleOps(in object: ObjectState, key: MapKey, at clock: Clock?) -> [Op] {
        guard let ops = entries(of: object)[key] else { return [] }
        if let clock { return ops.filter { $0.isVisible(at: clock) } }
        return ops.filter(\.isVisible)
    }

    /// The op that gives `key` its value (the last visible one, now or at
    /// `clock`), or nil if the key has none.
    ///
    /// Read from the newest op back: the winner is nearly always the last,
    /// and each op read is a copy (a key overwritten a thousand times was
    /// a thousand copies per read).
    func winningOp(in object: ObjectState, key: MapKey, at clock: Clock?) -> Op? {
        entries(of: object)[key].flatMap { Self.winningOp(of: $0, at: clock) }
    }

    private static func winningOp(of ops: KeyOps, at clock: Clock?) -> Op? {
        for op in ops.reversed() where clock.map({ op.isVisible(at: $0) }) ?? op.isVisible { return op }
        return nil
    }

    /// The keys with a visible value, sorted by UTF-8 bytes.
    func visibleKeys(in object: ObjectState, at clock: Clock?) -> [MapKey] {
        var keys: [MapKey] = []
        for (key, ops) in entries(of: object) where Self.winningOp(of: ops, at: clock) != nil { keys.append(key) }
        keys.sort()
        return keys
    }

    /// A visible element of a sequence with the ops that make it visible.
    struct VisibleElement {
        var element: SequenceElement
        /// The visible ops in op id order; the last one wins.
        var ops: [Op]
        /// Width in the sequence's index units.
        var units: Int
        var winner: Op { ops[ops.count - 1] }
    }

    /// Every visible element in order.
    func visibleElements(in object: ObjectState, at clock: Clock?) -> [VisibleElement] {
        var result: [VisibleElement] = []
        let sequence = sequence(of: object)
        let width = sequence.width
        sequence.forEach { element in
            let ops = clock.map { element.visibleOps(at: $0) } ?? element.visibleOps
            if let last = ops.last {
                result.append(VisibleElement(element: element, ops: ops, units: Int(width.units(of: last))))
            }
            return true
        }
        return result
    }

    /// The visible element covering unit `index`, with the units before it.
    func visibleElement(in object: ObjectState, coveringUnit index: Int, at clock: Clock?) -> (VisibleElement, start: Int)? {
        if let clock {
            var start = 0
            for element in visibleElements(in: object, at: clock) {
                if index < start + element.units, element.units > 0 { return (element, start) }
                start += element.units
            }
            return nil
        }
        return Self.visibleElement(in: sequences[Int(object.body)], coveringUnit: index)
    }

    /// The visible element covering unit `index` now, with the units before it.
    static func visibleElement(in tree: borrowing SequenceTree, coveringUnit index: Int) -> (VisibleElement, start: Int)? {
        guard let (location, start) = tree.element(coveringUnit: index) else { return nil }
        let element = tree[location]
        return (VisibleElement(element: element, ops: element.visibleOps, units: Int(element.units)), start)
    }

    /// Length in index units.
    func length(of object: ObjectState, at clock: Clock?) -> Int {
        if object.kind.isSequence {
            guard let clock else { return sequence(of: object).units }
            return visibleElements(in: object, at: clock).reduce(0) { $0 + $1.units }
        }
        return visibleKeys(in: object, at: clock).count
    }

    /// The text of a text object (U+FFFC for non-string elements).
    func text(of object: ObjectState, at clock: Clock?) -> String {
        var utf8: [UInt8] = []
        func append(action: OpAction, value: Primitive) {
            if action == .set, case .string(let s) = value {
                utf8.append(contentsOf: s.utf8)
            } else {
                utf8.append(contentsOf: TextWidth.objectReplacement.utf8)
            }
        }
        sequence(of: object).forEachLeaf(packed: clock == nil ? { $0.appendText(to: &utf8) } : nil) { elements in
            for index in elements.indices {
                // Most elements are a character nothing updated: read in
                // place, without building the insert op as an ``Op``.
                if clock == nil && elements[index].updates.isEmpty {
                    if elements[index].insertOpIsVisible { append(action: elements[index].action, value: elements[index].value) }
                } else if let winner = clock.map({ elements[index].winner(at: $0) }) ?? elements[index].winner {
                    append(action: winner.action, value: winner.value)
                }
            }
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// The public value an op shows.
    func value(of op: Op, at clock: Clock?) -> Value {
        if let kind = op.action.objectType {
            return .Object(objId(op.id), kind.publicType)
        }
        if op.isCounter { return .Scalar(.Counter(op.counterValue(at: clock))) }
        return .Scalar(op.value.publicValue)
    }

    /// The exact value an op shows (counters with their increments applied).
    func primitive(of op: Op, at clock: Clock?) -> Primitive {
        if op.isCounter { return .counter(op.counterValue(at: clock)) }
        return op.value
    }
}
