import Automerge

extension Check {
    /// Whether `doc` can still write `ops` ops of its own. Op counters end at
    /// 2^32 - 1, and received changes may have used them up (the seeds near
    /// 2^32 invite it); then a local edit must fail with
    /// `AutomergeError.opCounterOverflow` (Rust cannot write past the last
    /// counter either). Tried on a fork, which counts on from the same op.
    static func hasRoom(_ doc: Document, forOps ops: Int) -> Bool {
        let probe = doc.fork()
        do {
            for index in 0..<ops { try probe.put(obj: .ROOT, key: "room \(index)", value: .Null) }
        } catch AutomergeError.opCounterOverflow {
            return false
        } catch {
            // Any other refusal is not about room: the caller's own edit will show it.
        }
        return true
    }
}
