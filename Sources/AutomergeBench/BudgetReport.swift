import Foundation

/// Every figure a benchmark of this process measured against a budget, for
/// the one table `automerge-bench all` ends with (the performance issue asks for every
/// figure beside its budget in one place).
enum BudgetReport {
    struct Entry {
        let work: String
        let figure: String
        let budget: String
        let verdict: String
    }

    // The benchmarks run on the main thread, one after another.
    nonisolated(unsafe) private(set) static var entries: [Entry] = []

    /// Records one figure with its budget and verdict.
    static func add(_ work: String, figure: String, budget: String, verdict: String) {
        entries.append(Entry(work: work, figure: figure, budget: budget, verdict: verdict))
    }

    /// Records the line an append benchmark printed in its own process
    /// (`LABEL  F µs/op at N items   budget B µs VERDICT`).
    static func addPerItemLine(_ line: String) {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let unit = fields.firstIndex(of: "µs/op"), unit > 0, let budget = fields.firstIndex(of: "budget"),
              budget + 2 < fields.count else { return }
        add(fields[..<(unit - 1)].joined(separator: " "), figure: fields[unit - 1] + " µs/op",
            budget: "≤ \(fields[budget + 1]) µs", verdict: fields[(budget + 3)...].joined(separator: " "))
    }

    /// The table of every recorded figure, as Markdown.
    static func printTable() {
        guard !entries.isEmpty else { return }
        print("\nevery budget of this run:\n")
        print("| work | figure | budget | verdict |")
        print("| --- | --- | --- | --- |")
        for entry in entries { print("| \(entry.work) | \(entry.figure) | \(entry.budget) | \(entry.verdict) |") }
    }
}
