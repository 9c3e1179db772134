import Automerge
import AutomergeUtilities
import Foundation
import Testing

/// Every public declaration of automerge-swift 0.6.1
/// (`../shared/reference/automerge-swift-0.6.1-public-api.md`), named with
/// its exact signature. This file is the check: it stops compiling when a
/// name, label, type, optionality, throwing-ness (for members that do not
/// throw there) or mutability drifts, and the exhaustive switches stop
/// compiling when an enum gains or loses a case a 0.6.1 client switches over.
///
/// Only the public API is imported (no `@testable`), as a client sees it.
/// Left out: the SwiftUI `Binding` helpers and `Transferable`/`UTType`
/// (Apple platforms only, as in 0.6.1).
@Suite("automerge-swift 0.6.1 declarations")
struct DeclarationTests {
    @Test func actorId() {
        let _: () -> ActorId = ActorId.init
        let _: (UUID) -> ActorId = ActorId.init(uuid:)
        let _: (Data) -> ActorId? = ActorId.init(data:)
        let actor = ActorId()
        let _: String = actor.description
        requireEquatableHashableSendable(ActorId.self)
    }

    @Test func boundText() throws {
        let doc = Document()
        let _: (String) -> AutomergeText = AutomergeText.init(_:)
        let unbound = AutomergeText()
        let _: Bool = unbound.isBound
        let text = try AutomergeText("hi", doc: doc, path: ".note")
        let _: (Document, String) throws -> Void = text.bind(doc:path:)
        let _: (Document, ObjId) throws -> Void = text.bind(doc:id:)
        let id = try #require(try doc.lookupPath(path: ".note"))
        _ = try AutomergeText(doc: doc, objId: id)
        text.value = text.value + "!"
        let _: AutomergeText.CodingKeys = .value
        let _: (Encoder) throws -> Void = text.encode(to:)
        let _: (Decoder) throws -> AutomergeText = AutomergeText.init(from:)
        let _: Bool = text == unbound
        var hasher = Hasher()
        text.hash(into: &hasher)
        let _: String = text.description
        let _: String = text.debugDescription
        requireCodable(AutomergeText.self)
        #expect(text.value == "hi!")
    }

    @Test func boundCounter() throws {
        let doc = Document()
        let _: (Int) -> Counter = Counter.init(_:)
        let counter = try Counter(2, doc: doc, path: ".views")
        let _: (Document, ObjId, any CodingKey) throws -> Counter = Counter.init(doc:objId:key:)
        _ = try Counter(doc: doc, objId: .ROOT, key: AnyCodingKey("views"))
        let _: Bool = counter.isBound
        let _: (Document, String) throws -> Void = counter.bind(doc:path:)
        counter.value = counter.value + 1
        let _: (Int) -> Void = counter.increment(by:)
        counter.increment(by: 2)
        let _: (Encoder) throws -> Void = counter.encode(to:)
        let _: (Decoder) throws -> Counter = Counter.init(from:)
        let _: Bool = counter == Counter()
        var hasher = Hasher()
        counter.hash(into: &hasher)
        let _: String = counter.description
        requireCodable(Counter.self)
        #expect(counter.value == 5)
    }

    @Test func changeAndHash() throws {
        let doc = Document()
        try doc.put(obj: .ROOT, key: "a", value: .Int(1))
        let hash = try #require(doc.heads().first)
        let change = try #require(doc.change(hash: hash))
        let _: ActorId = change.actorId
        let _: String? = change.message
        let _: [ChangeHash] = change.deps
        let _: Date = change.timestamp
        let _: Data = change.bytes
        let _: ChangeHash = change.hash
        let _: String = hash.debugDescription
        let _: Data = doc.heads().raw()
        let _: Set<ChangeHash>? = Data().heads()
        requireEquatable(Change.self)
        requireEquatableHashableSendable(ChangeHash.self)
        requireCustomDebugStringConvertible(ChangeHash.self)
    }

    @Test func anyCodingKey() throws {
        let _: (Prop) -> AnyCodingKey = AnyCodingKey.init(_:)
        let _: (PathElement) -> AnyCodingKey = AnyCodingKey.init(_:)
        let _: AnyCodingKey = AnyCodingKey(AnyCodingKey("a"))
        let _: (String) -> AnyCodingKey = AnyCodingKey.init(_:)
        let _: (UInt64) -> AnyCodingKey = AnyCodingKey.init(_:)
        let _: AnyCodingKey = AnyCodingKey.ROOT
        let _: (Int) -> AnyCodingKey? = AnyCodingKey.init(intValue:)
        let _: (String) -> AnyCodingKey? = AnyCodingKey.init(stringValue:)
        let key = AnyCodingKey("a")
        let _: String = key.stringValue
        let _: Int? = key.intValue
        let _: (String) throws -> [AnyCodingKey] = AnyCodingKey.parsePath(_:)
        let _: String = key.description
        var hasher = Hasher()
        key.hash(into: &hasher)
        let keys: [any CodingKey] = [key, AnyCodingKey(1)]
        let _: String = keys.stringPath()
        let _: String = [key].stringPath()
        let _: String = [PathElement(obj: .ROOT, prop: .Key("a"))].stringPath()
        requireEquatable(AnyCodingKey.self)

        for error in [PathParseError.InvalidPathElement("x"), .EmptyListIndex("[]")] {
            switch error {
            case .InvalidPathElement(let element): _ = element
            case .EmptyListIndex(let element): _ = element
            }
        }
        let _: String? = PathParseError.EmptyListIndex("[]").errorDescription
        requireLocalizedError(PathParseError.self)
    }

    @Test func bindingError() {
        for error in [BindingError.Unbound, .NotText] {
            switch error {
            case .InvalidPath(let path): _ = path
            case .NotText, .NotCounter, .Unbound: break
            }
        }
        let _: String? = BindingError.NotText.errorDescription
        requireLocalizedError(BindingError.self)
        requireEquatable(BindingError.self)
    }

    @Test func decoderAndEncoder() throws {
        struct Note: Codable, Equatable { var title: String }
        let doc = Document()
        var encoder = AutomergeEncoder(doc: doc)
        encoder = AutomergeEncoder(doc: doc, strategy: .createWhenNeeded, cautiousWrite: false, reportingLoglevel: .errorOnly)
        encoder.userInfo = [:]
        encoder.schemaStrategy = .override
        encoder.cautiousWrite = true
        let _: Document = encoder.doc
        let _: LogVerbosity = encoder.logLevel
        try encoder.encode(Note(title: "a"))
        try encoder.encode(Optional(Note(title: "b")))
        try encoder.encode(Note(title: "c"), at: [AnyCodingKey("inner")])

        var decoder = AutomergeDecoder(doc: doc)
        decoder.userInfo = [:]
        let _: Document = decoder.doc
        #expect(try decoder.decode(Note.self) == Note(title: "b"))
        #expect(try decoder.decode(Note.self, from: [AnyCodingKey("inner")]) == Note(title: "c"))
        let _: (Document) -> AutomergeDecoder = AutomergeDecoder.init(doc:)
        let _: (String) throws -> ObjId? = doc.lookupPath(path:)
    }

    @Test func codingKeyLookupError() {
        let error = CodingKeyLookupError.MismatchedSchema("x")
        switch error {
        case .UnexpectedLookupFailure(let s), .InvalidPathElement(let s), .EmptyListIndex(let s), .IndexOutOfBounds(let s),
             .InvalidValueLookup(let s), .InvalidIndexLookup(let s), .PathExtendsThroughText(let s),
             .PathExtendsThroughScalar(let s), .MismatchedSchema(let s), .SchemaMissing(let s), .NoPathForSingleValue(let s):
            _ = s
        case .AutomergeDocError(let underlying): _ = underlying as Error
        }
        let _: Bool = error == .SchemaMissing("x")
        let _: String? = error.errorDescription
        let _: String? = error.failureReason
        requireLocalizedError(CodingKeyLookupError.self)
    }

    @Test func schemaStrategyAndLogVerbosity() {
        for strategy in [SchemaStrategy.createWhenNeeded, .override, .readonly] {
            switch strategy {
            case .createWhenNeeded, .override, .readonly: break
            }
        }
        for level in [LogVerbosity.errorOnly, .debug, .tracing] {
            switch level {
            case .errorOnly, .debug, .tracing: break
            }
        }
        #expect(LogVerbosity.errorOnly.rawValue == 3 && LogVerbosity.debug.rawValue == 6 && LogVerbosity.tracing.rawValue == 8)
        #expect(LogVerbosity.errorOnly < .tracing)
        requireComparable(LogVerbosity.self)
        requireSendable(LogVerbosity.self)
    }

    @Test func cursorAndPosition() throws {
        let doc = Document()
        let text = try doc.putObject(obj: .ROOT, key: "t", ty: .Text)
        try doc.spliceText(obj: text, start: 0, delete: 0, value: "abc")
        let cursor = try doc.cursor(obj: text, position: 1)
        let _: String = cursor.description
        for position in [Position.cursor(cursor), .index(0)] {
            switch position {
            case .cursor(let c): _ = c
            case .index(let i): _ = i as UInt64
            }
        }
        requireEquatableHashableSendable(Cursor.self)
    }

    @Test func documentMembers() throws {
        let doc = Document(textEncoding: .unicodeScalar, logLevel: .errorOnly)
        _ = Document()
        _ = Document(logLevel: .debug)
        _ = try Document(doc.save(), logLevel: .tracing)
        _ = try Document(doc.save())
        doc.actor = ActorId()
        let _: TextEncoding = doc.textEncoding

        let _: (ObjId, String, ScalarValue) throws -> Void = doc.put(obj:key:value:)
        let _: (ObjId, UInt64, ScalarValue) throws -> Void = doc.put(obj:index:value:)
        let _: (ObjId, String, ObjType) throws -> ObjId = doc.putObject(obj:key:ty:)
        let _: (ObjId, UInt64, ObjType) throws -> ObjId = doc.putObject(obj:index:ty:)
        let _: (ObjId, UInt64, ScalarValue) throws -> Void = doc.insert(obj:index:value:)
        let _: (ObjId, UInt64, ObjType) throws -> ObjId = doc.insertObject(obj:index:ty:)
        let _: (ObjId, String) throws -> Void = doc.delete(obj:key:)
        let _: (ObjId, UInt64) throws -> Void = doc.delete(obj:index:)
        let _: (ObjId, String, Int64) throws -> Void = doc.increment(obj:key:by:)
        let _: (ObjId, UInt64, Int64) throws -> Void = doc.increment(obj:index:by:)
        let _: (ObjId, String) throws -> Value? = doc.get(obj:key:)
        let _: (ObjId, UInt64) throws -> Value? = doc.get(obj:index:)
        let _: (ObjId, String) throws -> Set<Value> = doc.getAll(obj:key:)
        let _: (ObjId, UInt64) throws -> Set<Value> = doc.getAll(obj:index:)
        let _: (ObjId, String, Set<ChangeHash>) throws -> Value? = doc.getAt(obj:key:heads:)
        let _: (ObjId, UInt64, Set<ChangeHash>) throws -> Value? = doc.getAt(obj:index:heads:)
        let _: (ObjId, String, Set<ChangeHash>) throws -> Set<Value> = doc.getAllAt(obj:key:heads:)
        let _: (ObjId, UInt64, Set<ChangeHash>) throws -> Set<Value> = doc.getAllAt(obj:index:heads:)
        let _: (ObjId) -> [String] = doc.keys(obj:)
        let _: (ObjId, Set<ChangeHash>) -> [String] = doc.keysAt(obj:heads:)
        let _: (ObjId) throws -> [Value] = doc.values(obj:)
        let _: (ObjId, Set<ChangeHash>) throws -> [Value] = doc.valuesAt(obj:heads:)
        let _: (ObjId) throws -> [(String, Value)] = doc.mapEntries(obj:)
        let _: (ObjId, Set<ChangeHash>) throws -> [(String, Value)] = doc.mapEntriesAt(obj:heads:)
        let _: (ObjId) -> UInt64 = doc.length(obj:)
        let _: (ObjId, Set<ChangeHash>) -> UInt64 = doc.lengthAt(obj:heads:)
        let _: (ObjId) -> ObjType = doc.objectType(obj:)
        let _: (ObjId) throws -> String = doc.text(obj:)
        let _: (ObjId, Set<ChangeHash>) throws -> String = doc.textAt(obj:heads:)
        let _: (ObjId, UInt64) throws -> Cursor = doc.cursor(obj:position:)
        let _: (ObjId, UInt64, Set<ChangeHash>) throws -> Cursor = doc.cursor(obj:position:heads:)
        let _: (ObjId, Cursor) throws -> UInt64 = doc.position(obj:cursor:)
        let _: (ObjId, Cursor, Set<ChangeHash>) throws -> UInt64 = doc.position(obj:cursor:heads:)
        let _: (ObjId, UInt64, Int64, [ScalarValue]) throws -> Void = doc.splice(obj:start:delete:values:)
        let _: (ObjId, UInt64, Int64, String?) throws -> Void = doc.spliceText(obj:start:delete:value:)
        let _: (ObjId, String) throws -> Void = doc.updateText(obj:value:)
        let _: (ObjId, UInt64, UInt64, ExpandMark, String, ScalarValue) throws -> Void = doc.mark(obj:start:end:expand:name:value:)
        let _: (ObjId) throws -> [Mark] = doc.marks(obj:)
        let _: (ObjId, Set<ChangeHash>) throws -> [Mark] = doc.marksAt(obj:heads:)
        let _: (ObjId, Position, Set<ChangeHash>) throws -> [Mark] = doc.marksAt(obj:position:heads:)
        let _: (ObjId, Position) throws -> [Mark] = doc.marksAt(obj:position:)
        let _: (String?, Date) -> Void = doc.commitWith(message:timestamp:)
        doc.commitWith()
        doc.commitWith(message: "m")
        doc.commitWith(timestamp: Date())
        let _: () -> Data = doc.save
        let _: () -> Document = doc.fork
        let _: (Set<ChangeHash>) throws -> Document = doc.forkAt(heads:)
        let _: (Document) throws -> Void = doc.merge(other:)
        let _: (Document) throws -> [Patch] = doc.mergeWithPatches(other:)
        let _: () -> Set<ChangeHash> = doc.heads
        let _: () -> [ChangeHash] = doc.getHistory
        let _: (ChangeHash) -> Change? = doc.change(hash:)
        let _: (Set<ChangeHash>, Set<ChangeHash>) -> [Patch] = doc.difference(from:to:)
        let _: (Set<ChangeHash>) -> [Patch] = doc.difference(since:)
        let _: (Set<ChangeHash>) -> [Patch] = doc.difference(to:)
        let _: (ObjId) throws -> [PathElement] = doc.path(obj:)
        let _: () -> Data = doc.encodeNewChanges
        let _: (Set<ChangeHash>) throws -> Data = doc.encodeChangesSince(heads:)
        let _: (Data) throws -> Void = doc.applyEncodedChanges(encoded:)
        let _: (Data) throws -> [Patch] = doc.applyEncodedChangesWithPatches(encoded:)
        try doc.spliceText(obj: try doc.putObject(obj: .ROOT, key: "t", ty: .Text), start: 0, delete: 0)
        requireSendable(Document.self)
    }

    @Test func errors() {
        requireLocalizedError(DocError.self)
        requireLocalizedError(LoadError.self)
        requireLocalizedError(DecodeSyncStateError.self)
        requireLocalizedError(ReceiveSyncError.self)
        let document: (DocError) -> String? = { $0.errorDescription }
        let load: (LoadError) -> String? = { $0.errorDescription }
        let state: (DecodeSyncStateError) -> String? = { $0.errorDescription }
        let receive: (ReceiveSyncError) -> String? = { $0.errorDescription }
        _ = (document, load, state, receive)
    }

    @Test func sync() throws {
        let _: () -> SyncState = SyncState.init
        let _: (Data) throws -> SyncState = SyncState.init(bytes:)
        let state = SyncState()
        let _: Set<ChangeHash>? = state.theirHeads
        let _: () -> Void = state.reset
        let _: () -> Data = state.encode
        requireSendable(SyncState.self)
        let doc = Document()
        let _: (SyncState) -> Data? = doc.generateSyncMessage(state:)
        let _: (SyncState, Data) throws -> Void = doc.receiveSyncMessage(state:message:)
        let _: (SyncState, Data) throws -> [Patch] = doc.receiveSyncMessageWithPatches(state:message:)
        // The documentation's loop, as a 0.6.1 client writes it.
        let peer = Document()
        try peer.put(obj: .ROOT, key: "k", value: .String("v"))
        let (mine, theirs) = (SyncState(), SyncState())
        for _ in 0..<5 {
            if let message = doc.generateSyncMessage(state: mine) { try peer.receiveSyncMessage(state: theirs, message: message) }
            if let message = peer.generateSyncMessage(state: theirs) { _ = try doc.receiveSyncMessageWithPatches(state: mine, message: message) }
        }
        #expect(mine.theirHeads == peer.heads())
        #expect(try SyncState(bytes: mine.encode()).encode() == mine.encode())
    }

    @Test func marks() {
        let mark = Mark(start: 0, end: 1, name: "bold", value: .Boolean(true))
        let _: UInt64 = mark.start
        let _: UInt64 = mark.end
        let _: String = mark.name
        let _: ScalarValue = mark.value
        for expand in [ExpandMark.before, .after, .both, .none] {
            switch expand {
            case .before, .after, .both, .none: break
            }
        }
        requireEquatableHashableSendable(Mark.self)
        requireEquatableHashableSendable(ExpandMark.self)
    }

    @Test func objIdAndObjType() {
        let _: ObjId = ObjId.ROOT
        let _: String = ObjId.ROOT.debugDescription
        for type in [ObjType.Map, .List, .Text] {
            switch type {
            case .Map, .List, .Text: break
            }
            let _: String = type.debugDescription
        }
        requireEquatableHashableSendable(ObjId.self)
        requireSendable(ObjType.self)
    }

    @Test func patches() {
        let actions: [PatchAction] = [
            .Put(.ROOT, .Key("a"), .Scalar(.Null)),
            .Insert(obj: .ROOT, index: 0, values: []),
            .SpliceText(obj: .ROOT, index: 0, value: "a", marks: [:]),
            .Increment(.ROOT, .Key("a"), 1),
            .DeleteMap(.ROOT, "a"),
            .DeleteSeq(DeleteSeq(obj: .ROOT, index: 0, length: 1)),
            .Marks(.ROOT, []),
            .Conflict(.ROOT, .Index(0)),
        ]
        for action in actions {
            switch action {
            case .Put(let obj, let prop, let value): _ = (obj, prop, value)
            case .Insert(obj: let obj, index: let index, values: let values): _ = (obj, index, values)
            case .SpliceText(obj: let obj, index: let index, value: let value, marks: let marks): _ = (obj, index, value, marks)
            case .Increment(let obj, let prop, let by): _ = (obj, prop, by as Int64)
            case .DeleteMap(let obj, let key): _ = (obj, key)
            case .DeleteSeq(let delete): _ = (delete.obj, delete.index, delete.length)
            case .Marks(let obj, let marks): _ = (obj, marks)
            case .Conflict(let obj, let prop): _ = (obj, prop)
            }
        }
        let patch: (Patch) -> (PatchAction, [PathElement]) = { ($0.action, $0.path) }
        _ = patch
        requireEquatable(Patch.self)
        requireEquatable(PatchAction.self)
        requireEquatable(DeleteSeq.self)
    }

    @Test func pathElementAndProp() {
        let element = PathElement(obj: .ROOT, prop: .Index(2))
        let _: Prop = element.prop
        let _: ObjId = element.obj
        switch element.prop {
        case .Key(let key): _ = key
        case .Index(let index): _ = index as UInt64
        }
        requireEquatable(PathElement.self)
        requireSendable(Prop.self)
    }

    @Test func scalarValues() {
        let values: [ScalarValue] = [
            .Bytes(Data()), .String(""), .Uint(0), .Int(0), .F64(0), .Counter(0), .Timestamp(Date()),
            .Boolean(true), .Unknown(typeCode: 9, data: Data()), .Null,
        ]
        for value in values {
            switch value {
            case .Bytes(let data): _ = data
            case .String(let string): _ = string
            case .Uint(let value): _ = value as UInt64
            case .Int(let value): _ = value as Int64
            case .F64(let value): _ = value
            case .Counter(let value): _ = value as Int64
            case .Timestamp(let date): _ = date
            case .Boolean(let value): _ = value
            case .Unknown(typeCode: let code, data: let data): _ = (code as UInt8, data)
            case .Null: break
            }
            let _: String = value.description
        }
        for value in [Value.Scalar(.Null), .Object(.ROOT, .Map)] {
            switch value {
            case .Object(let id, let type): _ = (id, type)
            case .Scalar(let scalar): _ = scalar
            }
            let _: String = value.debugDescription
        }
        requireEquatableHashableSendable(ScalarValue.self)
        requireEquatableHashableSendable(Value.self)
        for encoding in [TextEncoding.graphemeCluster, .unicodeScalar, .utf8, .utf16] {
            switch encoding {
            case .graphemeCluster, .unicodeScalar, .utf8, .utf16: break
            }
        }
    }

    @Test func scalarValueRepresentable() {
        checkRepresentable(true, BooleanScalarConversionError.self)
        checkRepresentable("s", StringScalarConversionError.self)
        checkRepresentable(Data([1]), BytesScalarConversionError.self)
        checkRepresentable(URL(string: "https://example.com")!, URLScalarConversionError.self)
        checkRepresentable(UInt(1), UIntScalarConversionError.self)
        checkRepresentable(Int(1), IntScalarConversionError.self)
        checkRepresentable(Int8(1), IntScalarConversionError.self)
        checkRepresentable(Int16(1), IntScalarConversionError.self)
        checkRepresentable(Int32(1), IntScalarConversionError.self)
        checkRepresentable(Int64(1), IntScalarConversionError.self)
        checkRepresentable(UInt8(1), IntScalarConversionError.self)
        checkRepresentable(UInt16(1), IntScalarConversionError.self)
        checkRepresentable(UInt32(1), IntScalarConversionError.self)
        checkRepresentable(UInt64(1), IntScalarConversionError.self)
        checkRepresentable(Double(1), FloatingPointScalarConversionError.self)
        checkRepresentable(Float(1), FloatingPointScalarConversionError.self)
        checkRepresentable(Date(timeIntervalSince1970: 1), TimestampScalarConversionError.self)
        checkRepresentable(ScalarValue.Int(1), ScalarValueConversionError.self)
        let _: Double.ConvertError.Type = FloatingPointScalarConversionError.self
        let _: Float.ConvertError.Type = FloatingPointScalarConversionError.self

        let bool = BooleanScalarConversionError.notboolScalarValue(.Null)
        let url = [URLScalarConversionError.notStringScalarValue(.Null), .notMatchingURLScheme("x")]
        let string = StringScalarConversionError.notstringScalarValue(.Null)
        let bytes = BytesScalarConversionError.notbytesScalarValue(.Null)
        let unsigned = UIntScalarConversionError.notUIntScalarValue(.Null)
        let signed = IntScalarConversionError.notIntScalarValue(.Null)
        let float = FloatingPointScalarConversionError.notF64ScalarValue(.Null)
        let timestamp = TimestampScalarConversionError.notTimetampScalarValue(.Null)
        let errors: [any LocalizedError] = [bool, string, bytes, unsigned, signed, float, timestamp] + url
        for error in errors {
            _ = (error.errorDescription, error.failureReason)
        }
    }

    @Test func utilities() throws {
        let doc = Document()
        let _: (Document) -> Bool = doc.equivalentContents(_:)
        let _: () throws -> Bool = doc.isEmpty
        let _: () throws -> AutomergeValue = doc.schema
        let _: (Document, ObjId) throws -> AutomergeValue = doc.parseToSchema(_:from:)
        let _: () throws -> Void = doc.walk
        let value = try doc.schema()
        switch value {
        case .dict(let entries): _ = entries as [String: AutomergeValue]
        case .array(let items): _ = items as [AutomergeValue]
        case .text(let text): _ = text
        case .scalar(let scalar): _ = scalar
        }
        let _: String = value.description
        requireEquatableHashable(AutomergeValue.self)
    }
}

// Conformance checks: each compiles only when the type conforms.
func requireEquatable<T: Equatable>(_: T.Type) {}
func requireComparable<T: Comparable>(_: T.Type) {}
func requireSendable<T: Sendable>(_: T.Type) {}
func requireCodable<T: Codable>(_: T.Type) {}
func requireLocalizedError<T: LocalizedError>(_: T.Type) {}
func requireCustomDebugStringConvertible<T: CustomDebugStringConvertible>(_: T.Type) {}
func requireEquatableHashable<T: Equatable & Hashable>(_: T.Type) {}
func requireEquatableHashableSendable<T: Equatable & Hashable & Sendable>(_: T.Type) {}

/// `T`'s `ScalarValueRepresentable` conformance with 0.6.1's error type, both ways.
func checkRepresentable<T: ScalarValueRepresentable & Equatable, E>(_ value: T, _: E.Type) where T.ConvertError == E {
    let scalar: ScalarValue = value.toScalarValue()
    let back: Result<T, E> = T.fromScalarValue(scalar)
    #expect((try? back.get()) == value)
}
