import Foundation

/// Manages a directory of named datastores, one folder each. Make one per
/// directory and keep it for the life of the app.
public final class DatastoreManager: @unchecked Sendable {
    // @unchecked: `open` is read and written only under `lock`.
    /// The managed directory.
    public let directory: URL
    private let lock = NSLock()
    private var open: [String: Datastore] = [:]

    /// A manager for `directory`, created if missing.
    public init(directory: String) throws {
        self.directory = URL(fileURLWithPath: directory, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError.storage("cannot create the directory \(directory): \(error.localizedDescription)")
        }
    }

    /// The datastore `name`, created on first use. Every call for one name
    /// returns the same open instance, from any thread.
    /// - Throws: ``StoreError/invalidDatastoreName(_:)``, storage errors.
    public func datastoreNamed(_ name: String) throws -> Datastore {
        try Self.validate(name: name)
        return try lock.withLock {
            if let datastore = open[name] { return datastore }
            let datastore = try Datastore(name: name, directory: directory.appendingPathComponent(name, isDirectory: true))
            open[name] = datastore
            return datastore
        }
    }

    /// Deletes the datastore `name` and everything in it. Instances of it
    /// still held elsewhere must not be used afterwards.
    /// - Throws: ``StoreError/invalidDatastoreName(_:)``, or
    ///   ``StoreError/storage(_:)`` when there is no such datastore.
    public func deleteDatastoreNamed(_ name: String) throws {
        try Self.validate(name: name)
        try lock.withLock {
            open.removeValue(forKey: name)
            let folder = directory.appendingPathComponent(name, isDirectory: true)
            guard FileManager.default.fileExists(atPath: folder.path) else {
                throw StoreError.storage("no datastore named '\(name)'")
            }
            do {
                try FileManager.default.removeItem(at: folder)
            } catch {
                throw StoreError.storage("cannot delete datastore '\(name)': \(error.localizedDescription)")
            }
        }
    }

    /// The names of the datastores in the directory, sorted.
    public func allDatastores() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { name in
            (try? Self.validate(name: name)) != nil
                && FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).appendingPathComponent("datastore.sqlite").path)
        }.sorted()
    }

    /// Names match `^[a-zA-Z]+[a-zA-Z0-9_]*$`.
    static func validate(name: String) throws {
        guard isPlainName(name) else { throw StoreError.invalidDatastoreName(name) }
    }

    /// Whether `name` matches `^[a-zA-Z]+[a-zA-Z0-9_]*$` (datastore and index names).
    static func isPlainName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIILetter else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "_" }
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
