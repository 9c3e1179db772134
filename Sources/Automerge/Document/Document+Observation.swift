#if canImport(Combine)
import Combine

/// Where Combine exists a document is an `ObservableObject`, as in
/// automerge-swift: SwiftUI views that observe it redraw on every change.
extension Document: ObservableObject {
    /// Publishes after each call that changed (or tried to change) the
    /// document, once its lock is released.
    public var objectDidChange: AnyPublisher<(), Never> {
        didChangeSubject.eraseToAnyPublisher()
    }

    func announceWillChange() {
        objectWillChange.send()
    }

    func announceDidChange() {
        didChangeSubject.send()
    }
}
#else
extension Document {
    /// Observation needs Combine; without it changes are not announced.
    @inline(__always) func announceWillChange() {}

    /// Observation needs Combine; without it changes are not announced.
    @inline(__always) func announceDidChange() {}
}
#endif
