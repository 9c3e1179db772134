/// Marks over text: begin and end anchors in the sequence; at each
/// character, the covering mark with the highest op id wins for its name,
/// and a null winner hides the name. Reported as maximal spans of one name
/// and value, positions in the document's text units.
extension DocumentState {
    func marks(in object: ObjectState, at clock: Clock?) -> [Mark] {
        var spans: [MarkSpan] = []
        scanMarks(in: object, at: clock) { spans.append($0) }
        return spans.map { Mark(start: UInt64($0.start), end: UInt64($0.end), name: $0.name, value: $0.value.publicValue) }
    }

    /// Exact mark spans (values kept as ``Primitive``), positions in `units`.
    struct MarkSpan: Equatable {
        var name: String
        var value: Primitive
        var start: Int
        var end: Int
    }

    /// Calls `emit` with every maximal span, ordered by start, then name.
    func scanMarks(in object: ObjectState, at clock: Clock?, width: WidthRule? = nil, _ emit: (MarkSpan) -> Void) {
        // Spans come from mark anchors: a sequence without any has none.
        guard object.kind.isSequence else { return }
        let sequence = ops.sequence(of: object)
        guard sequence.markCount > 0 else { return }
        let width = width ?? sequence.width
        var active: [OpId: (name: String, value: Primitive)] = [:]
        var current: [String: Primitive] = [:]
        var open: [String: (value: Primitive, start: Int)] = [:]
        var dirty = false
        var position = 0
        var finished: [MarkSpan] = []

        func close(_ name: String, at end: Int) {
            if let span = open.removeValue(forKey: name), end > span.start {
                finished.append(MarkSpan(name: name, value: span.value, start: span.start, end: end))
            }
        }

        sequence.forEach { element in
            if element.isMark {
                let id = element.id
                if clock == nil || clock!.covers(id) {
                    if let name = element.markName {
                        active[id] = (name, element.value)
                    } else if id.counter > 0 {
                        active.removeValue(forKey: OpId(counter: id.counter - 1, actor: id.actor))
                    }
                    dirty = true
                }
                return true
            }
            let winner = clock.map { element.winner(at: $0) } ?? element.winner
            guard let winner else { return true }
            if dirty {
                dirty = false
                var winners: [String: OpId] = [:]
                current = [:]
                for (id, mark) in active {
                    if let best = winners[mark.name], ops.actors.precedes(id, best) { continue }
                    winners[mark.name] = id
                    current[mark.name] = mark.value
                }
                for (name, span) in open where current[name].map({ $0 != span.value }) ?? true {
                    close(name, at: position)
                }
                for (name, value) in current where value != .null && open[name] == nil {
                    open[name] = (value, position)
                }
            }
            position += Int(width.units(of: winner))
            return true
        }
        for name in Array(open.keys) { close(name, at: position) }
        finished.sort { a, b in
            if a.start != b.start { return a.start < b.start }
            if !a.name.utf8.elementsEqual(b.name.utf8) { return a.name.utf8.lexicographicallyPrecedes(b.name.utf8) }
            return a.end < b.end
        }
        finished.forEach(emit)
    }
}
