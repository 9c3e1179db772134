/// An `automerge:` URL, as automerge-repo's `stringifyAutomergeUrl` and
/// `parseAutomergeUrl` write and read them: `automerge:<document id>`,
/// optionally pinned to a point in the document's history by
/// `#<head>|<head>|…`, each head being base58check of a change hash's bytes.
///
/// - `automerge:<id>#` (an empty heads section) is an empty list of heads,
///   distinct from no heads section at all, as in automerge-repo.
/// - Heads are written sorted by their base58check text (automerge-repo sorts
///   them so that equal sets give equal URLs) and read in the order given.
///   A head's length is not checked (automerge-repo does not check it either);
///   an Automerge change hash is 32 bytes.
/// - Sub-document paths (`automerge:<id>/<path>`, newer automerge-repo) are
///   not supported: such a URL is ``AutomergeURLError/pathNotSupported``.
public struct AutomergeURL: Hashable, Sendable, CustomStringConvertible {
    /// The scheme and colon every URL starts with.
    public static let prefix = "automerge:"

    /// The document the URL names.
    public var documentId: DocumentId
    /// The heads the URL is pinned to; `nil` when it has no `#` section.
    public var heads: [[UInt8]]?

    /// The URL of `documentId`, pinned to `heads` when given.
    public init(documentId: DocumentId, heads: [[UInt8]]? = nil) {
        self.documentId = documentId
        self.heads = heads
    }

    /// The URL that `text` spells.
    public init(_ text: String) throws(AutomergeURLError) {
        guard text.hasPrefix(Self.prefix) else { throw .missingPrefix }
        let sections = text.dropFirst(Self.prefix.count).split(separator: "#", omittingEmptySubsequences: false)
        guard sections.count <= 2 else { throw .multipleHeadsSections }
        let id = sections[0]
        guard !id.contains("/") else { throw .pathNotSupported }
        do {
            documentId = try DocumentId(String(id))
        } catch {
            throw .invalidDocumentId(error)
        }
        guard sections.count == 2 else {
            heads = nil
            return
        }
        let encodedHeads = sections[1].isEmpty ? [] : sections[1].split(separator: "|", omittingEmptySubsequences: false)
        var heads: [[UInt8]] = []
        for (index, head) in encodedHeads.enumerated() {
            do {
                heads.append(try Base58Check.decode(String(head)))
            } catch {
                throw .invalidHead(index: index, error)
            }
        }
        self.heads = heads
    }

    /// The URL as text: `automerge:<id>`, then `#` and the heads' base58check, sorted and joined by `|`.
    public var description: String {
        var text = Self.prefix + documentId.description
        if let heads {
            text += "#" + heads.map(Base58Check.encode).sorted().joined(separator: "|")
        }
        return text
    }
}

/// Why a string is not an ``AutomergeURL``.
public enum AutomergeURLError: Error, Equatable, Sendable {
    /// The string does not start with `automerge:`.
    case missingPrefix
    /// The part after `automerge:` is not a document id.
    case invalidDocumentId(DocumentIdError)
    /// The URL names a sub-document path (`automerge:<id>/…`), which we do not read.
    case pathNotSupported
    /// The URL has more than one `#`.
    case multipleHeadsSections
    /// The head at `index` (from 0) of the heads section is not base58check (an empty one included).
    case invalidHead(index: Int, Base58Error)
}
