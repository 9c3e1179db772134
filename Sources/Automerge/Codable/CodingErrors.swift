#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Errors from finding or establishing a location of a document while encoding,
/// decoding from a path, or binding. Every message names the path and the reason.
public enum CodingKeyLookupError: LocalizedError, Equatable, CustomStringConvertible {
    /// A lookup failed for a reason none of the other cases describe.
    case UnexpectedLookupFailure(String)
    /// A path element is not valid.
    case InvalidPathElement(String)
    /// A list index in a path has no value.
    case EmptyListIndex(String)
    /// A list index is past the end of the list in the document.
    case IndexOutOfBounds(String)
    /// A map key was used where the document has a list, or the value at a key is unusable.
    case InvalidValueLookup(String)
    /// A list index was used where the document has a map, or the value at an index is unusable.
    case InvalidIndexLookup(String)
    /// The path continues past a Text object, which is a leaf of the schema.
    case PathExtendsThroughText(String)
    /// The path continues past a scalar value, which is a leaf of the schema.
    case PathExtendsThroughScalar(String)
    /// The document has a different kind of value where the model needs a map, list, text or scalar.
    case MismatchedSchema(String)
    /// The model needs an object the document does not have, and the strategy does not allow creating it.
    case SchemaMissing(String)
    /// A single value can't be encoded at this path (for example at the root, which is a map).
    case NoPathForSingleValue(String)
    /// An error from the underlying document.
    case AutomergeDocError(Error)

    /// Compares the descriptions.
    public static func == (lhs: CodingKeyLookupError, rhs: CodingKeyLookupError) -> Bool {
        lhs.errorDescription == rhs.errorDescription
    }

    /// What went wrong, with the path.
    public var errorDescription: String? {
        switch self {
        case .UnexpectedLookupFailure(let message), .InvalidPathElement(let message), .EmptyListIndex(let message),
             .IndexOutOfBounds(let message), .InvalidValueLookup(let message), .InvalidIndexLookup(let message),
             .PathExtendsThroughText(let message), .PathExtendsThroughScalar(let message),
             .MismatchedSchema(let message), .SchemaMissing(let message), .NoPathForSingleValue(let message):
            return message
        case .AutomergeDocError(let error):
            return "An underlying Automerge error: \(error)"
        }
    }

    /// The error description.
    public var description: String { errorDescription ?? "CodingKeyLookupError" }
}

/// Errors from parsing a schema path with ``AnyCodingKey/parsePath(_:)``.
public enum PathParseError: LocalizedError, Equatable, CustomStringConvertible {
    /// A path component is not a key or a bracketed index.
    case InvalidPathElement(String)
    /// A bracketed list index has no value (`[]`).
    case EmptyListIndex(String)

    /// What went wrong, with the component and path.
    public var errorDescription: String? {
        switch self {
        case .InvalidPathElement(let message), .EmptyListIndex(let message): return message
        }
    }

    /// The error description.
    public var description: String { errorDescription ?? "PathParseError" }
}

/// Errors from binding an ``AutomergeText`` or ``Counter`` to a document.
public enum BindingError: LocalizedError, Equatable, CustomStringConvertible {
    /// The path can't be bound (empty, unparsable, or leading through something that isn't a container).
    case InvalidPath(String)
    /// The value at the location is not a Text object.
    case NotText
    /// The value at the location is not a counter.
    case NotCounter
    /// The instance is not bound to a document.
    case Unbound

    /// What went wrong.
    public var errorDescription: String? {
        switch self {
        case .InvalidPath(let message): return "Can't bind to this location of the Automerge document: \(message)"
        case .NotText: return "The location is not an Automerge Text object."
        case .NotCounter: return "The location is not an Automerge counter."
        case .Unbound: return "The instance is not bound to an Automerge document."
        }
    }

    /// The error description.
    public var description: String { errorDescription ?? "BindingError" }
}
