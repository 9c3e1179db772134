/// What is at the path a bound type binds to.
///
/// ``AutomergeText`` and ``Counter`` bind to a path the same way: the path
/// is followed, creating the maps and lists it names on the way, and the
/// value at its end either is there already (bound to if it is of the
/// type's kind) or is still to be created.
enum BindingPlace {
    /// A value is at the end of the path, in `slot`.
    case existing(Value, slot: ValueSlot)
    /// Nothing is at the end of the path yet: the bound value is created along `target`.
    case missing(PathResolver.WriteTarget)

    /// The keys of a dot-separated `path`, such as `.notes.[0].title`.
    /// - Throws: ``BindingError/InvalidPath(_:)`` if it does not parse.
    static func keys(_ path: String) throws -> [AnyCodingKey] {
        do { return try AnyCodingKey.parsePath(path) } catch { throw BindingError.InvalidPath("\(path): \(error)") }
    }

    /// What is at `path` in `doc`; `kind` names what binds there (such as
    /// "text"), for the error about the root.
    /// - Throws: ``BindingError/InvalidPath(_:)`` if the path is the root or can't be followed.
    init(doc: Document, path: [AnyCodingKey], kind: String) throws {
        let target: PathResolver.WriteTarget?
        do { target = try PathResolver(doc: doc).write(path, strategy: .createWhenNeeded) } catch {
            throw BindingError.InvalidPath("\(path.stringPath()): \(error)")
        }
        guard let target else { throw BindingError.InvalidPath("the root of a document is a map, not \(kind)") }
        if target.steps.count == 1, let existing = target.existing {
            self = .existing(existing, slot: target.slot)
        } else {
            self = .missing(target)
        }
    }
}
