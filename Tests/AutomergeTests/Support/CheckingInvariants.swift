import Testing
@testable import Automerge

/// A trait that checks the op set's invariants after every call on every
/// document the test (or each test of the suite) uses, and records a broken
/// invariant as an issue. Debug builds only: release builds compile the
/// checks out, so tests that must check in release call
/// ``Automerge/Document/checkInvariants()`` themselves.
struct CheckingInvariants: TestTrait, SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        #if DEBUG
        try await InvariantChecks.$onViolation.withValue({ violation in
            Issue.record("broken invariant after a document call: \(violation)")
        }) {
            try await function()
        }
        #else
        try await function()
        #endif
    }
}

extension Trait where Self == CheckingInvariants {
    /// Checks every document's invariants after every call on it (debug builds).
    static var checkingInvariants: Self { CheckingInvariants() }
}

extension Document {
    /// Throws the first broken invariant of the document's op set, in any
    /// build (without a second check by ``CheckingInvariants`` after it).
    func checkInvariants() throws {
        let check = { () throws(InvariantViolation) in try self.locked { state throws(InvariantViolation) in try state.ops.checkInvariants() } }
        #if DEBUG
        try InvariantChecks.$onViolation.withValue(nil) { try check() }
        #else
        try check()
        #endif
    }
}
