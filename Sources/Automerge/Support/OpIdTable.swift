/// A map from op ids to small non-negative integers (leaf numbers, object
/// positions, rows of a file being loaded). Keys are never removed.
///
/// Ids live in per-actor runs (an array indexed by `counter - base`)
/// whenever that stays dense: an actor's counters are consecutive while it
/// types, so an insert or a lookup is one array access near the previous
/// one. Everything else goes to a hash table. Neither part lets an input
/// choose its cost:
/// - The runs of a table never hold more than ``denseSlotsPerEntry`` slots
///   per entry plus ``denseSlotsAllowance`` (one object's worth), counting
///   the per-actor directory, so ids spread over the counter range or over
///   many actors go to the hash table instead of allocating for the gaps.
/// - The hash table probes linearly from a hash that mixes the id with a
///   per-process random seed (full avalanche), so which ids collide cannot
///   be known in advance: lookups stay O(1) expected for every input.
///   (`Dictionary`'s SipHash is as safe but cost a tenth of the editing
///   trace; a fixed multiplicative hash let crafted counters share one probe
///   cluster and made loads quadratic.)
struct OpIdTable: Sendable {
    /// One actor's dense range: `values[counter - base]`, -1 where absent.
    private struct Run: Sendable {
        var base: UInt32 = 0
        var values: [Int32] = []
    }

    private struct Slot: Sendable {
        var key: UInt64
        /// -1 marks an empty slot.
        var value: Int32
    }

    /// Dense slots allowed per entry of the table.
    static let denseSlotsPerEntry = 4
    /// Dense slots allowed beyond the per-entry share: 64 bytes, less than
    /// the object or load a table belongs to costs anyway.
    static let denseSlotsAllowance = 16
    /// What a directory entry (a ``Run``) costs, counted in 4-byte slots.
    private static let runCost = MemoryLayout<Run>.stride / MemoryLayout<Int32>.stride
    private static let absent: Int32 = -1

    // Fields are packed into 48 bytes: a sequence tree holds one table, and
    // past 128 bytes Swift copies a tree read through a pointer with memcpy
    // (and retains what it holds), on every keystroke.
    private var runs: [Run] = []
    private var slots: [Slot] = []
    private(set) var count = 0
    /// Hash-table probes past an id's home slot, summed over all inserts: a
    /// work counter that tests hold to a linear bound.
    private(set) var extraProbes = 0
    /// The directory and the runs' values together, in 4-byte slots.
    private var storedDenseSlots: UInt32 = 0
    /// The most dense slots a ``reserve(_:entries:)`` allowed, beyond the
    /// per-entry bound of the entries present.
    private var reservedSlots: UInt32 = 0
    private var hashedCount: UInt32 = 0
    private var shift: UInt8 = 64

    var denseSlots: Int { Int(storedDenseSlots) }

    init() {}

    // MARK: Reading

    /// The value stored for `id`.
    subscript(id: OpId) -> Int32? {
        get {
            let actor = Int(id.actor)
            if actor < runs.count {
                let offset = Int(id.counter &- runs[actor].base)
                if id.counter >= runs[actor].base, offset < runs[actor].values.count {
                    let value = runs[actor].values[offset]
                    if value != Self.absent { return value }
                }
            }
            return hashedCount == 0 ? nil : hashed(Self.pack(id))
        }
        set {
            guard let newValue else { preconditionFailure("OpIdTable never removes keys") }
            assert(newValue >= 0, "OpIdTable stores non-negative values")
            if !setInRun(id, newValue, onlyIfAbsent: false) { setOutsideRuns(id, newValue) }
        }
    }

    /// Stores `value` for `id` unless `id` is present; returns whether it was stored.
    @discardableResult
    @inline(__always)
    mutating func insertIfAbsent(_ id: OpId, _ value: Int32) -> Bool {
        if setInRun(id, value, onlyIfAbsent: true) { return true }
        if self[id] != nil { return false }
        setOutsideRuns(id, value)
        return true
    }

    @inline(__always)
    private static func pack(_ id: OpId) -> UInt64 { UInt64(id.counter) << 32 | UInt64(id.actor) }

    // MARK: Dense runs

    /// Stores `id` in its actor's run if the run covers it and it is not
    /// hashed (and, with `onlyIfAbsent`, not present): the fast path, kept
    /// small enough to inline.
    @inline(__always)
    private mutating func setInRun(_ id: OpId, _ value: Int32, onlyIfAbsent: Bool) -> Bool {
        let actor = Int(id.actor)
        guard actor < runs.count, id.counter >= runs[actor].base else { return false }
        let offset = Int(id.counter - runs[actor].base)
        guard offset < runs[actor].values.count else { return false }
        if runs[actor].values[offset] == Self.absent {
            if hashedCount > 0, hashed(Self.pack(id)) != nil { return false }
            count += 1
        } else if onlyIfAbsent {
            return false
        }
        runs[actor].values[offset] = value
        return true
    }

    /// Stores `id` by growing its actor's run, or else in the hash table.
    @inline(never)
    private mutating func setOutsideRuns(_ id: OpId, _ value: Int32) {
        if !growRun(to: id, value) { setHashed(Self.pack(id), value) }
    }

    private var denseBudget: Int {
        min(Int(Int32.max), max(Int(reservedSlots), Self.denseSlotsPerEntry * (count + 1) + Self.denseSlotsAllowance))
    }

    /// Grows (or starts) the run of `id`'s actor to cover it, at least
    /// doubling it so that growing costs amortised O(1) per entry.
    private mutating func growRun(to id: OpId, _ value: Int32) -> Bool {
        let actor = Int(id.actor)
        let directoryCost = max(0, actor + 1 - runs.count) * Self.runCost
        let available = denseBudget - denseSlots - directoryCost
        guard available > 0 else { return false }
        let counter = Int(id.counter)
        let run = actor < runs.count ? runs[actor] : Run()
        let (base, length) = (Int(run.base), run.values.count)
        var newBase: Int, newLength: Int
        if length == 0 {
            (newBase, newLength) = (counter, min(available, 8))
        } else if counter >= base + length {
            newBase = base
            newLength = max(counter - base + 1, min(2 * length, length + available))
        } else {
            let end = base + length
            newLength = max(end - counter, min(2 * length, length + available))
            newBase = max(0, end - newLength)
            newLength = end - newBase
        }
        newLength = min(newLength, Int(UInt32.max) - newBase + 1)
        guard newLength - length <= available else { return false }
        if hashedCount > 0, hashed(Self.pack(id)) != nil { return false }
        var values = [Int32](repeating: Self.absent, count: newLength)
        if length > 0 { values.replaceSubrange((base - newBase)..<(base - newBase + length), with: run.values) }
        values[counter - newBase] = value
        while runs.count <= actor { runs.append(Run()) }
        runs[actor] = Run(base: UInt32(newBase), values: values)
        storedDenseSlots += UInt32(directoryCost + newLength - length)
        count += 1
        return true
    }

    /// Lays out runs for the ids `plan` saw, before they are inserted: for
    /// each actor whose ids are dense enough, a run over exactly their range,
    /// while all runs stay within the per-entry budget of `entries` (the
    /// number of ids expected).
    mutating func reserve(_ plan: OpIdRanges, entries: Int) {
        let limit = min(Int(Int32.max), Self.denseSlotsPerEntry * entries + Self.denseSlotsAllowance)
        reservedSlots = max(reservedSlots, UInt32(limit))
        for (actor, range) in plan.ranges {
            let span = Int(range.maxCounter) - Int(range.minCounter) + 1
            guard span <= Self.denseSlotsPerEntry * range.count + Self.denseSlotsAllowance else { continue }
            let current = actor < runs.count ? runs[actor] : Run()
            guard current.values.isEmpty, hashedCount == 0 else { continue }
            let directoryCost = max(0, actor + 1 - runs.count) * Self.runCost
            guard denseSlots + directoryCost + span <= limit else { continue }
            while runs.count <= actor { runs.append(Run()) }
            runs[actor] = Run(base: range.minCounter, values: [Int32](repeating: Self.absent, count: span))
            storedDenseSlots += UInt32(directoryCost + span)
        }
    }

    // MARK: Hash table

    /// The hash table's capacity: its slots but the last, which holds the
    /// table's seed.
    @inline(__always)
    private var capacity: Int { slots.count - 1 }

    @inline(__always)
    private func home(_ key: UInt64) -> Int {
        // Seeded (xor and an odd multiplier), then a full-avalanche
        // finaliser: every key bit moves every hash bit. The seed is drawn
        // for each table when its slots are allocated and kept in the last
        // slot: a static seed's lazy initialisation put an opaque call on
        // the lookup path, and callers then copied the op set around it.
        let seed = slots[capacity].key
        var x = (key ^ seed) &* ((seed &* 0x9E37_79B9_7F4A_7C15) | 1)
        x ^= x >> 32
        x &*= 0xD6E8_FEB8_6659_FD93
        x ^= x >> 32
        x &*= 0xD6E8_FEB8_6659_FD93
        x ^= x >> 32
        return Int(truncatingIfNeeded: x >> shift)
    }

    private func hashed(_ key: UInt64) -> Int32? {
        let mask = capacity - 1
        var index = home(key)
        while slots[index].value != Self.absent {
            if slots[index].key == key { return slots[index].value }
            index = (index + 1) & mask
        }
        return nil
    }

    private mutating func setHashed(_ key: UInt64, _ value: Int32) {
        if slots.isEmpty || (Int(hashedCount) + 1) * 2 > capacity { rehash(minimumCapacity: Int(hashedCount) + 1) }
        let mask = capacity - 1
        var index = home(key)
        while slots[index].value != Self.absent {
            if slots[index].key == key {
                slots[index].value = value
                return
            }
            index = (index + 1) & mask
            extraProbes &+= 1
        }
        slots[index] = Slot(key: key, value: value)
        hashedCount += 1
        count += 1
    }

    /// Resizes the hash table for `minimumCapacity` keys at most half full,
    /// under a new seed.
    private mutating func rehash(minimumCapacity: Int) {
        var size = 16
        while size < minimumCapacity * 2 { size *= 2 }
        let old = slots.dropLast()
        slots = [Slot](repeating: Slot(key: 0, value: Self.absent), count: size + 1)
        slots[size] = Slot(key: UInt64.random(in: .min ... .max), value: 0)
        shift = UInt8(64 - size.trailingZeroBitCount)
        let mask = size - 1
        for entry in old where entry.value != Self.absent {
            var index = home(entry.key)
            while slots[index].value != Self.absent {
                index = (index + 1) & mask
                extraProbes &+= 1
            }
            slots[index] = entry
        }
    }
}

extension OpIdTable: InvariantChecked {
    /// Throws the table's ``invariantViolations()``, if any.
    func checkInvariants() throws(InvariantViolation) {
        let problems = invariantViolations()
        guard problems.isEmpty else {
            throw InvariantViolation(invariant: .opIdTableSound, structure: "op id table", detail: problems.joined(separator: "; "))
        }
    }

    /// What is wrong with the table's structure, if anything: counts that
    /// disagree with the entries, runs past their budget, a hashed key that
    /// its probe sequence does not reach or that a run also holds. Empty for
    /// a sound table.
    func invariantViolations() -> [String] {
        var problems: [String] = []
        var denseEntries = 0, slotsUsed = runs.count * Self.runCost
        for (actor, run) in runs.enumerated() {
            slotsUsed += run.values.count
            denseEntries += run.values.lazy.filter { $0 != Self.absent }.count
            if Int(run.base) + run.values.count - 1 > Int(UInt32.max) { problems.append("run of actor \(actor) passes counter 2^32") }
            if run.values.contains(where: { $0 < Self.absent }) { problems.append("run of actor \(actor) holds a negative value") }
        }
        if slotsUsed > denseSlots { problems.append("runs take \(slotsUsed) slots, \(denseSlots) accounted") }
        if denseSlots > denseBudget { problems.append("runs take \(denseSlots) slots, past their budget of \(denseBudget)") }
        let used = slots.dropLast().filter { $0.value != Self.absent }
        if used.count != Int(hashedCount) { problems.append("\(used.count) hashed keys, \(hashedCount) counted") }
        if denseEntries + Int(hashedCount) != count { problems.append("\(denseEntries) dense + \(hashedCount) hashed entries, count \(count)") }
        if !slots.isEmpty && Int(hashedCount) * 2 > capacity { problems.append("hash table more than half full") }
        var seen = Set<UInt64>()
        for entry in used {
            if !seen.insert(entry.key).inserted { problems.append("key \(entry.key) hashed twice") }
            if hashed(entry.key) != entry.value { problems.append("key \(entry.key) not reached from its home slot") }
            let id = OpId(counter: UInt32(truncatingIfNeeded: entry.key >> 32), actor: UInt32(truncatingIfNeeded: entry.key))
            let actor = Int(id.actor)
            if actor < runs.count, id.counter >= runs[actor].base, Int(id.counter - runs[actor].base) < runs[actor].values.count,
               runs[actor].values[Int(id.counter - runs[actor].base)] != Self.absent {
                problems.append("\(id) both in a run and hashed")
            }
        }
        return problems
    }
}

extension OpIdTable {
    /// Breaks the entry count, for the tests that show the invariant check reports it.
    mutating func corruptCountForTesting() { count += 1 }
}

extension OpIdTable {
    /// What a set of tables holds and what filling them cost, for the
    /// tests that hold both to linear bounds.
    struct Statistics: Equatable {
        var tables = 0
        var entries = 0
        var denseSlots = 0
        var extraProbes = 0
        /// Entries in hash tables rather than dense runs.
        var hashed = 0

        static func + (a: Statistics, b: Statistics) -> Statistics {
            Statistics(tables: a.tables + b.tables, entries: a.entries + b.entries, denseSlots: a.denseSlots + b.denseSlots,
                       extraProbes: a.extraProbes + b.extraProbes, hashed: a.hashed + b.hashed)
        }
    }

    var statistics: Statistics {
        Statistics(tables: 1, entries: count, denseSlots: denseSlots, extraProbes: extraProbes, hashed: Int(hashedCount))
    }
}
