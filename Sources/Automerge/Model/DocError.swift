#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// automerge-swift's name for the errors of document operations.
///
/// There it is an opaque struct with a message; here every operation
/// throws ``AutomergeError``, whose cases say what went wrong, so code that
/// catches `DocError` catches them and reads the same `errorDescription`.
public typealias DocError = AutomergeError

extension AutomergeError: LocalizedError {
    /// The readable explanation (``description``).
    public var errorDescription: String? { description }
}
