extension SequenceTree {
    /// The element a new element at unit `index` goes after (HEAD is
    /// `OpId.root`), or nil past the end, as Rust's insert query chooses it:
    /// right after the visible element that reaches `index`, moved past mark
    /// anchors that ask to stay on the left of new text (`isText` only),
    /// never between a begin/end pair.
    @inline(__always)  // called on a table element: out of line, the caller would copy the whole tree first
    func insertionReference(at index: Int, isText: Bool) -> OpId? {
        guard index >= 0, index <= units else { return nil }
        let lastVisible: OpId
        let scanStart: Location?
        if index == 0 {
            lastVisible = .root
            scanStart = startLocation
        } else {
            guard let (location, _) = element(coveringUnit: index - 1) else { return nil }
            lastVisible = id(at: location)
            scanStart = successor(of: location)
        }
        guard isText, markCount > 0, let scanStart else { return lastVisible }
        var candidates: [(reference: OpId, anchor: OpId?)] = [(lastVisible, nil)]
        forEach(from: scanStart) { element in
            if element.isMark {
                let id = element.id
                let isBegin = element.markName != nil
                if !isBegin, id.counter > 0,
                   let pair = candidates.firstIndex(where: { $0.anchor == OpId(counter: id.counter - 1, actor: id.actor) }) {
                    candidates.removeSubrange(pair...)
                    return true
                }
                if (isBegin && element.expand) || (!isBegin && !element.expand) {
                    candidates.append((id, id))
                }
                return true
            }
            return !element.isVisible
        }
        return candidates.last?.reference ?? lastVisible
    }
}
