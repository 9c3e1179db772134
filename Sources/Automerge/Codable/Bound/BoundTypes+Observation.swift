#if canImport(Combine)
import Combine

extension AutomergeText: ObservableObject {
    func sendObjectWillChange() {
        objectWillChange.send()
    }
}

extension Counter: ObservableObject {
    func sendObjectWillChange() {
        objectWillChange.send()
    }
}
#else
extension AutomergeText {
    /// Observation needs Combine; without it changes are not announced.
    func sendObjectWillChange() {}
}

extension Counter {
    /// Observation needs Combine; without it changes are not announced.
    func sendObjectWillChange() {}
}
#endif

#if canImport(SwiftUI)
import SwiftUI

extension AutomergeText {
    /// A SwiftUI binding to ``value``: every edit goes straight into the
    /// document with minimal splices, with no re-encode of the model.
    public func textBinding() -> Binding<String> {
        Binding(get: { self.value }, set: { self.value = $0 })
    }
}

extension Counter {
    /// A SwiftUI binding to ``value``; setting it increments the counter by the difference.
    public func valueBinding() -> Binding<Int> {
        Binding(get: { self.value }, set: { self.value = $0 })
    }
}
#endif
