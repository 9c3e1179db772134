@_spi(Fuzzing) import AutomergeRepoProtocol
import Foundation

/// `repo-message`: any bytes, as one WebSocket frame of the automerge-repo
/// network, read as a CBOR item (`CBORItem(decoding:)`, the library's
/// strict decoder under `@_spi(Fuzzing)`) and as a ``RepoMessage``
/// (`RepoMessage(decoding:)`, which runs the same decoder first).
///
/// What the library writes is read back by ``WireReader``, the harness's
/// own reader of preferred serialization, which knows nothing of the
/// library's decoder. Checks:
/// - CBOR: the decoder throws a `CBORError` whose offset lies in the input
///   and points at what the case names (a break code, a reserved additional
///   information, a two-byte simple value...), or gives an item whose
///   `encoded()` form is preferred serialization (shortest heads, definite
///   lengths, floats in the narrowest exact width, NaN as `f97e00`), nested
///   no deeper than the limit, with no map holding two keys written alike;
///   that form decodes again and re-encodes to the same bytes, to an item
///   `==` to the first with an equal hash (NaN included); and an
///   input already in preferred serialization re-encodes to itself.
/// - Messages: `RepoMessage(decoding:)` throws `invalidCBOR` with the very
///   error the CBOR decoder threw, exactly when it threw one, and `notAMap`
///   only for an item that is not a map; or it gives a message whose `type`
///   is the input's `type` entry (`unknown(type:)` only for a type no case
///   has). The message's `encoded()` form is a map in preferred
///   serialization, `type` first, no entry `null` or `undefined`, no entry
///   its type does not have; it decodes to an equal message (equal hashes)
///   and re-encodes to the same bytes; and it says what the input said:
///   ids, texts, `data` and lists verbatim, the document id as the input's
///   base58check text or its 16 bytes, `count` and `timestamp` the input's
///   number, peer metadata from `peerMetadata` or else `metadata`,
///   `newHeads` the input's storage ids and heads; every field the input
///   gives (not `null` or `undefined`) is written.
/// - Size limit: with `maximumSize` one byte short the input is refused as
///   `tooLarge`; with exactly its size it gives what the default limit gives.
enum RepoMessageTarget {
    static func run(_ data: Data) throws(FuzzFailure) {
        let bytes = [UInt8](data)
        let item = try decodedItem(bytes)
        try decodedMessage(bytes, item: item)
    }

    // MARK: CBOR

    /// The item in `bytes` as the harness reads its re-encoding, after the
    /// round-trip checks; the decoder's error when `bytes` are not one item.
    static func decodedItem(_ bytes: [UInt8]) throws(FuzzFailure) -> Result<WireItem, CBORError> {
        let item: CBORItem
        do { item = try CBORItem(decoding: bytes) } catch {
            _ = String(describing: error)
            try checkOffset(error, bytes)
            return .failure(error)
        }
        let encoded = item.encoded()
        let tree = try WireReader.read(encoded, "a decoded item's encoded() form")
        let again: CBORItem
        do { again = try CBORItem(decoding: encoded) } catch {
            throw FuzzFailure("repo-message: a decoded item's encoded() form does not decode: \(error)")
        }
        try Check.that(again.encoded() == encoded, "repo-message: a decoded item's encoded() form re-encodes to other bytes")
        try Check.that(again == item && again.hashValue == item.hashValue,
                       "repo-message: a decoded item and its re-encoding's are not == with equal hashes")
        if (try? WireReader.read(bytes, "")) != nil {
            try Check.that(encoded == bytes, "repo-message: an item in preferred serialization re-encodes to other bytes")
        }
        return .success(tree)
    }

    /// The offset a `CBORError` reports lies in the input and points at what the error names.
    static func checkOffset(_ error: CBORError, _ bytes: [UInt8]) throws(FuzzFailure) {
        func byte(_ at: Int) -> UInt8? { at >= 0 && at < bytes.count ? bytes[at] : nil }
        let offset: Int
        var holds = true
        switch error {
        case .truncated(let at), .invalidChunk(let at), .invalidUTF8(let at), .duplicateMapKey(let at):
            offset = at
        case .lengthExceedsInput(let at, let declared, let available):
            offset = at
            holds = declared > 0 && available >= 0 && available < bytes.count - at
        case .nestingTooDeep(let at, let limit):
            offset = at
            holds = limit == CBORItem.maximumNesting && [4, 5, 6].contains(byte(at).map { $0 >> 5 })
        case .reservedAdditionalInfo(let at, let value):
            offset = at
            holds = (28...30).contains(value) && byte(at).map { $0 & 0x1f } == value
        case .indefiniteLengthNotAllowed(let at, let majorType):
            offset = at
            holds = byte(at) == majorType << 5 | 31
        case .unexpectedBreak(let at):
            offset = at
            holds = byte(at) == 0xff
        case .invalidSimpleValue(let at, let value):
            offset = at
            holds = value < 32 && byte(at) == 0xf8 && byte(at + 1) == value
        case .trailingBytes(let at):
            offset = at
            holds = at > 0 && at < bytes.count
        }
        try Check.that(offset >= 0 && offset <= bytes.count && holds,
                       "repo-message: \(error) does not fit the \(bytes.count) bytes of input")
    }

    // MARK: Messages

    /// `RepoMessage.isEphemeral(prefix:)` on the input, checked to say yes
    /// for its first half only if it says yes for the whole.
    static func peekedEphemeral(_ bytes: [UInt8]) throws(FuzzFailure) -> Bool {
        let whole = bytes.withUnsafeBytes { RepoMessage.isEphemeral(prefix: $0) }
        let half = bytes.withUnsafeBytes { RepoMessage.isEphemeral(prefix: UnsafeRawBufferPointer(rebasing: $0.prefix($0.count / 2))) }
        try Check.that(!half || whole, "repo-message: the first half of the input peeked as ephemeral, the whole not")
        return whole
    }

    static func decodedMessage(_ bytes: [UInt8], item: Result<WireItem, CBORError>) throws(FuzzFailure) {
        let peeked = try peekedEphemeral(bytes)
        let message: RepoMessage
        do { message = try RepoMessage(decoding: bytes) } catch {
            _ = String(describing: error)
            switch (error, item) {
            case (.invalidCBOR(let thrown), .failure(let expected)):
                try Check.that(thrown == expected, "repo-message: RepoMessage threw \(thrown), the CBOR decoder \(expected)")
            case (_, .failure(let expected)):
                throw FuzzFailure("repo-message: RepoMessage threw \(error) for bytes that are not CBOR (\(expected))")
            case (.invalidCBOR, .success), (.tooLarge, .success):
                throw FuzzFailure("repo-message: RepoMessage refused a CBOR item as \(error)")
            case (.notAMap, .success(let tree)):
                try Check.that(tree.entries == nil, "repo-message: a map refused as notAMap")
            case (.missingField, .success), (.wrongType, .success), (.invalidDocumentId, .success):
                break
            }
            try checkSizeLimit(bytes, .failure(error))
            return
        }
        guard case .success(let input) = item, input.entries != nil else {
            throw FuzzFailure("repo-message: RepoMessage decoded bytes that are not a CBOR map")
        }
        try checkSizeLimit(bytes, .success(message))
        try checkType(message, input)
        let isEphemeral = if case .ephemeral = message { true } else { false }
        try Check.that(!peeked || isEphemeral, "repo-message: a \(message.type) message peeked as ephemeral")

        let encoded = message.encoded()
        if isEphemeral {
            try Check.that(encoded.withUnsafeBytes { RepoMessage.isEphemeral(prefix: $0) },
                           "repo-message: an encoded ephemeral message not peeked as one")
        }
        let again: RepoMessage
        do { again = try RepoMessage(decoding: encoded) } catch {
            throw FuzzFailure("repo-message: a decoded message's encoded() form does not decode: \(error)")
        }
        try Check.that(again == message && again.hashValue == message.hashValue,
                       "repo-message: decoding a message's encoded() form gives another message: \(message) became \(again)")
        try Check.that(again.encoded() == encoded, "repo-message: a decoded message's encoded() form re-encodes to other bytes")

        let written = try WireReader.read(encoded, "a message's encoded() form")
        guard let fields = written.entries, fields.first?.key.text == "type" else {
            throw FuzzFailure("repo-message: a message's encoded() form is not a map that starts with its type")
        }
        let expected = message.isUnknown ? [] : fieldsByType[message.type] ?? []
        for field in fields {
            guard let key = field.key.text, key == "type" || expected.contains(key) else {
                throw FuzzFailure("repo-message: \(message.type)'s encoded() form has the entry \(field.key)")
            }
            try checkField(key, field.value, input, message)
        }
        // And each field the input gives is written.
        for key in expected where written[key] == nil {
            let given = key == "peerMetadata" ? input.present(key) ?? input.present("metadata") : input.present(key)
            try Check.that(given == nil, "repo-message: \(message.type)'s \(key) is not written")
        }
    }

    /// `maximumSize` one byte short refuses the input unread; exactly its size changes nothing.
    static func checkSizeLimit(_ bytes: [UInt8], _ expected: Result<RepoMessage, RepoMessageError>) throws(FuzzFailure) {
        let atLimit: Result<RepoMessage, RepoMessageError>
        do { atLimit = .success(try RepoMessage(decoding: bytes, maximumSize: bytes.count)) } catch { atLimit = .failure(error) }
        try Check.that(atLimit == expected, "repo-message: maximumSize: \(bytes.count) gives \(atLimit), the default limit \(expected)")
        guard !bytes.isEmpty else { return }
        let short: RepoMessageError?
        do {
            _ = try RepoMessage(decoding: bytes, maximumSize: bytes.count - 1)
            short = nil
        } catch {
            short = error
        }
        try Check.that(short == .tooLarge(byteCount: bytes.count, limit: bytes.count - 1),
                       "repo-message: maximumSize one byte short gave \(short.map { "\($0)" } ?? "a message")")
    }

    /// The message's `type` is the input's; `unknown` only for a type no case has.
    static func checkType(_ message: RepoMessage, _ input: WireItem) throws(FuzzFailure) {
        guard let type = input["type"]?.text else {
            throw FuzzFailure("repo-message: a message decoded without a text type")
        }
        try Check.that(message.type.utf8.elementsEqual(type.utf8), "repo-message: type \(type) decoded as \(message.type)")
        if message.isUnknown {
            try Check.that(fieldsByType[type] == nil, "repo-message: the known type \(type) decoded as unknown")
        }
    }

    /// The entries each known type writes, besides `type`.
    static let fieldsByType: [String: Set<String>] = [
        "join": ["senderId", "supportedProtocolVersions", "peerMetadata"],
        "peer": ["senderId", "selectedProtocolVersion", "targetId", "peerMetadata"],
        "error": ["senderId", "targetId", "message"],
        "leave": ["senderId"],
        "sync": ["senderId", "targetId", "documentId", "data"],
        "request": ["senderId", "targetId", "documentId", "data"],
        "doc-unavailable": ["senderId", "targetId", "documentId"],
        "ephemeral": ["senderId", "targetId", "count", "sessionId", "documentId", "data"],
        "remote-subscription-change": ["senderId", "targetId", "add", "remove"],
        "remote-heads-changed": ["senderId", "targetId", "documentId", "newHeads"],
    ]

    /// One entry of the re-encoded message says what the input said.
    static func checkField(_ key: String, _ written: WireItem, _ input: WireItem, _ message: RepoMessage) throws(FuzzFailure) {
        let context = "repo-message: \(message.type)'s \(key)"
        try Check.that(!written.isNullOrUndefined, "\(context) is written as \(written)")
        let given = input[key]
        switch key {
        case "documentId":
            // Read from its base58check text, or from its 16 bytes.
            let text = given?.bytes.flatMap { try? DocumentId(bytes: Array($0)) }?.description ?? given?.text
            try Check.that(text != nil && written.text.map { Array($0.utf8) } == text.map { Array($0.utf8) },
                           "\(context) is \(written), the input's \(String(describing: given))")
        case "count":
            try Check.that(sameNumber(given, written), "\(context) is \(written), the input's \(String(describing: given))")
        case "peerMetadata":
            // Read from `peerMetadata`, or else `metadata`; written as `peerMetadata`.
            guard let source = input.present("peerMetadata") ?? input.present("metadata"), source.entries != nil,
                  let entries = written.entries else {
                throw FuzzFailure("\(context) is \(written), the input's \(String(describing: given))")
            }
            let storageId = source.present("storageId")
            try Check.that(storageId?.encoding.elementsEqual(written["storageId"]?.encoding ?? []) ?? (written["storageId"] == nil),
                           "\(context).storageId is \(String(describing: written["storageId"])), the input's \(String(describing: storageId))")
            let ephemeral = source.present("isEphemeral")?.encoding.elementsEqual([0xf5]) ?? false
            try Check.that(written["isEphemeral"]?.encoding.elementsEqual([ephemeral ? 0xf5 : 0xf4]) == true
                           && entries.count == (storageId == nil ? 1 : 2),
                           "\(context) is \(written), the input's \(source)")
        case "newHeads":
            guard let givenEntries = given?.entries, let writtenEntries = written.entries, givenEntries.count == writtenEntries.count else {
                throw FuzzFailure("\(context) has other storage ids than the input's")
            }
            for entry in writtenEntries {
                guard let storageId = entry.key.text, let heads = given?[storageId], entry.value.entries?.count == 2 else {
                    throw FuzzFailure("\(context) has the storage id \(entry.key), which the input has not")
                }
                try Check.that(heads["heads"].map { entry.value["heads"]?.same($0) == true } == true
                               && entry.value["timestamp"].map { sameNumber(heads["timestamp"], $0) } == true,
                               "\(context).\(storageId) is \(entry.value), the input's \(heads)")
            }
        default:
            // Written as read: the type, ids, texts, data, lists.
            try Check.that(given.map { written.same($0) } == true,
                           "\(context) is \(written), the input's \(String(describing: given))")
        }
    }

    /// A whole number as read (an unsigned integer, or a float holding one) and as written (an unsigned integer).
    static func sameNumber(_ given: WireItem?, _ written: WireItem) -> Bool {
        guard case .unsigned(let number) = written.kind else { return false }
        switch given?.kind {
        case .unsigned(let read)?: return read == number
        case .float(let read)?: return UInt64(exactly: read) == number
        default: return false
        }
    }
}

extension RepoMessage {
    var isUnknown: Bool {
        if case .unknown = self { return true }
        return false
    }
}

// MARK: - The harness's reader

/// A CBOR item as ``WireReader`` read it, with its own bytes.
struct WireItem: CustomStringConvertible {
    indirect enum Kind {
        case unsigned(UInt64)
        case negative(UInt64)
        case bytes(ArraySlice<UInt8>)
        case text(String)
        case array([WireItem])
        case map([(key: WireItem, value: WireItem)])
        case tagged(UInt64, WireItem)
        /// A simple value: 20–23 are false, true, null and undefined.
        case simple(UInt8)
        case float(Double)
    }

    let kind: Kind
    /// The item's bytes, in preferred serialization.
    let encoding: ArraySlice<UInt8>

    /// The same item: the same bytes (preferred serialization writes each item one way).
    func same(_ other: WireItem) -> Bool { encoding.elementsEqual(other.encoding) }

    var text: String? {
        if case .text(let text) = kind { return text }
        return nil
    }

    var bytes: ArraySlice<UInt8>? {
        if case .bytes(let bytes) = kind { return bytes }
        return nil
    }

    var entries: [(key: WireItem, value: WireItem)]? {
        if case .map(let entries) = kind { return entries }
        return nil
    }

    var isNullOrUndefined: Bool {
        if case .simple(22...23) = kind { return true }
        return false
    }

    /// The value of the map entry whose key is the text `key`, by its UTF-8 bytes.
    subscript(key: String) -> WireItem? {
        entries?.first { $0.key.text.map { Array($0.utf8) } == Array(key.utf8) }?.value
    }

    /// The value of `key` unless it is absent, `null` or `undefined`, which messages take as absent.
    func present(_ key: String) -> WireItem? {
        guard let value = self[key], !value.isNullOrUndefined else { return nil }
        return value
    }

    var description: String { encoding.map { String(format: "%02x", $0) }.joined() }
}

/// Reads CBOR in preferred serialization only (RFC 8949 §4.1), the form the
/// library writes, independently of the library's decoder: every head in its
/// shortest form, definite lengths, floats in the narrowest width that holds
/// them exactly and NaN only as `f97e00`, simple values 24–31 nowhere, text
/// in UTF-8, no map with two keys written alike, nesting within
/// `CBORItem.maximumNesting`, nothing after the item.
struct WireReader {
    private let bytes: [UInt8]
    private var offset = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The item `bytes` hold; a ``FuzzFailure`` naming `what` when they are not one item in preferred serialization.
    static func read(_ bytes: [UInt8], _ what: String) throws(FuzzFailure) -> WireItem {
        var reader = WireReader(bytes)
        let item = try reader.item(depth: 0, what)
        guard reader.offset == bytes.count else { throw reader.fail(what, "bytes after the item") }
        return item
    }

    private func fail(_ what: String, _ why: String) -> FuzzFailure {
        FuzzFailure("repo-message: \(what) is not preferred-serialization CBOR: \(why) at byte \(offset) of \(bytes.count)")
    }

    private mutating func take(_ count: Int, _ what: String) throws(FuzzFailure) -> ArraySlice<UInt8> {
        guard count >= 0, count <= bytes.count - offset else { throw fail(what, "\(count) bytes past the end") }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    private mutating func item(depth: Int, _ what: String) throws(FuzzFailure) -> WireItem {
        let start = offset
        let initial = try take(1, what).first!
        let major = initial >> 5, info = initial & 0x1f
        var argument = UInt64(info)
        switch info {
        case 0..<24: break
        case 24...27:
            argument = try take(1 << Int(info - 24), what).reduce(0) { $0 << 8 | UInt64($1) }
            let shortest: UInt64 = [24, 0x100, 0x1_0000, 0x1_0000_0000][Int(info - 24)]
            guard major == 7 || argument >= shortest else { throw fail(what, "a head longer than its argument needs") }
        default: throw fail(what, "additional information \(info)")
        }
        let kind: WireItem.Kind
        switch major {
        case 0: kind = .unsigned(argument)
        case 1: kind = .negative(argument)
        case 2, 3:
            guard argument <= UInt64(bytes.count - offset) else { throw fail(what, "a string longer than the input") }
            let content = try take(Int(argument), what)
            if major == 2 {
                kind = .bytes(content)
            } else {
                guard let text = String(validating: content, as: UTF8.self) else { throw fail(what, "text that is not UTF-8") }
                kind = .text(text)
            }
        case 4, 5:
            guard depth < CBORItem.maximumNesting else { throw fail(what, "nesting deeper than \(CBORItem.maximumNesting)") }
            guard argument <= UInt64(bytes.count - offset) else { throw fail(what, "a count larger than the input") }
            if major == 4 {
                var items: [WireItem] = []
                for _ in 0..<argument { items.append(try item(depth: depth + 1, what)) }
                kind = .array(items)
            } else {
                var entries: [(key: WireItem, value: WireItem)] = []
                var keys: Set<ArraySlice<UInt8>> = []
                for _ in 0..<argument {
                    let key = try item(depth: depth + 1, what)
                    guard keys.insert(key.encoding).inserted else { throw fail(what, "a map key written twice (\(key))") }
                    entries.append((key, try item(depth: depth + 1, what)))
                }
                kind = .map(entries)
            }
        case 6:
            guard depth < CBORItem.maximumNesting else { throw fail(what, "nesting deeper than \(CBORItem.maximumNesting)") }
            kind = .tagged(argument, try item(depth: depth + 1, what))
        default:
            kind = try simpleOrFloat(info, argument, what)
        }
        return WireItem(kind: kind, encoding: bytes[start..<offset])
    }

    private func simpleOrFloat(_ info: UInt8, _ argument: UInt64, _ what: String) throws(FuzzFailure) -> WireItem.Kind {
        switch info {
        case 0..<24: return .simple(info)
        case 24:
            guard argument >= 32 else { throw fail(what, "simple value \(argument) in two bytes") }
            return .simple(UInt8(argument))
        case 25:
            let value = Self.double(fromHalf: UInt16(argument))
            guard !value.isNaN || argument == 0x7e00 else { throw fail(what, "a NaN other than f97e00") }
            return .float(value)
        case 26:
            let value = Double(Float(bitPattern: UInt32(argument)))
            guard !value.isNaN, !Self.halves.contains(value.bitPattern) else { throw fail(what, "a single that fits a half") }
            return .float(value)
        default:
            let value = Double(bitPattern: argument)
            guard !value.isNaN, Double(Float(value)).bitPattern != value.bitPattern else {
                throw fail(what, "a double that fits a single")
            }
            return .float(value)
        }
    }

    /// The value of IEEE 754 half-precision `bits`.
    static func double(fromHalf bits: UInt16) -> Double {
        let sign: Double = bits & 0x8000 == 0 ? 1 : -1
        let exponent = Int(bits >> 10 & 0x1f), fraction = Double(bits & 0x3ff)
        switch exponent {
        case 0: return sign * fraction * 0x1p-24
        case 31: return fraction == 0 ? sign * .infinity : .nan
        default: return sign * (1 + fraction / 1024) * pow(2, Double(exponent - 15))
        }
    }

    /// The bit patterns of every value a half holds, NaN aside.
    static let halves: Set<UInt64> = Set((0...UInt16.max).map { double(fromHalf: $0) }.filter { !$0.isNaN }.map(\.bitPattern))
}
