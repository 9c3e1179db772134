/// How patches report marks, as Rust does: inserted text carries the marks
/// over it in its `SpliceText`, and a `Marks` patch reports only where the
/// marks over text that was already there changed.

/// The marks over each position of a text, for positions visited in
/// increasing order: linear in the spans and positions together.
struct MarkSweep {
    private let starts: [DocumentState.MarkSpan]
    private let ends: [DocumentState.MarkSpan]
    private var nextStart = 0
    private var nextEnd = 0
    /// The marks (name to value) over the position last advanced to; null-valued marks are no marks.
    private(set) var active: [String: Value] = [:]
    /// Changes whenever ``active`` may have changed, so callers compare it only then.
    private(set) var generation = 0

    init(_ spans: [DocumentState.MarkSpan]) {
        starts = spans.sorted { $0.start < $1.start }
        ends = spans.sorted { $0.end < $1.end }
    }

    mutating func advance(to position: Int) {
        // Spans of one name never overlap, so a span that ended takes its name
        // off before any later span of that name puts it back.
        while nextEnd < ends.count, ends[nextEnd].end <= position {
            if active.removeValue(forKey: ends[nextEnd].name) != nil { generation += 1 }
            nextEnd += 1
        }
        while nextStart < starts.count, starts[nextStart].start <= position {
            let span = starts[nextStart]
            if span.end > position, span.value != .null {
                active[span.name] = .Scalar(span.value.publicValue)
                generation += 1
            }
            nextStart += 1
        }
    }
}

/// The mark changes over kept text: for each name, the runs of kept
/// characters whose value for it differs between the old and new states
/// (a removed mark reports `Null`), in new-state positions.
struct MarkChanges {
    private var old: MarkSweep
    private var open: [String: (start: Int, value: ScalarValue)] = [:]
    private var changes: [Mark] = []
    private var generations = (old: -1, new: -1)
    /// Where the last kept character ends, in the new state.
    private var lastEnd = 0

    init(old spans: [DocumentState.MarkSpan]) {
        old = MarkSweep(spans)
    }

    /// A character at `oldPosition` in the old state and `newPosition` (of
    /// `width` units) in the new one; `newMarks` sweeps the new state.
    mutating func kept(old oldPosition: Int, new newPosition: Int, width: Int, newMarks: inout MarkSweep) {
        old.advance(to: oldPosition)
        newMarks.advance(to: newPosition)
        defer { lastEnd = newPosition + width }
        guard (old.generation, newMarks.generation) != generations else { return }
        generations = (old.generation, newMarks.generation)
        var wanted: [String: ScalarValue] = [:]
        for name in Set(old.active.keys).union(newMarks.active.keys) where old.active[name] != newMarks.active[name] {
            if case .Scalar(let value)? = newMarks.active[name] { wanted[name] = value } else { wanted[name] = .Null }
        }
        for (name, run) in open where wanted[name] != run.value {
            changes.append(Mark(start: UInt64(run.start), end: UInt64(lastEnd), name: name, value: run.value))
            open[name] = nil
        }
        for (name, value) in wanted where open[name] == nil { open[name] = (newPosition, value) }
    }

    /// The changed runs, by start, then name in UTF-8 order (as strings compare in Automerge).
    mutating func finish() -> [Mark] {
        for (name, run) in open { changes.append(Mark(start: UInt64(run.start), end: UInt64(lastEnd), name: name, value: run.value)) }
        open = [:]
        return changes.sorted { $0.start != $1.start ? $0.start < $1.start : $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }
}
