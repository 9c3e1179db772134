import Automerge
import AutomergeConformance
import Foundation

/// `sync`: two selector bytes, then a sync message that a document receives
/// at some point of a real sync session; the same bytes are also read as a
/// saved sync state.
///
/// The first byte picks the scenario and the pair of documents
/// (``SyncSetup``), the second the rounds of honest sync before the message
/// arrives, which peer receives it, whether with patches, whether the link
/// strips flags trailers (Rust 0.5 peers), and whether a restored state
/// comes from the input itself. Checks:
/// - `SyncMessage(decoding:)` throws, or decodes a message whose `encoded()`
///   form decodes to an equal message and the same bytes; `SyncState(bytes:)`
///   throws `DecodeSyncStateError`, or gives a state whose `encode()` is a
///   prefix of the input and decodes to the same bytes;
/// - a refused message (`ReceiveSyncError`, `invalidMessage` exactly when the
///   bytes do not decode) leaves the document's heads and uncompressed save,
///   the state's `encode()` and public properties as they were, and the next
///   message the receiver generates is the one it would have generated had
///   the message never arrived;
/// - an accepted message keeps every old head in the history, applies
///   nothing when it carries no changes or the state is read-only, gives
///   patches that turn the old content into the new, and leaves a document
///   that saves and reloads equal; then, unless the message's changes
///   conflict with the partner's history (a merge of the two documents
///   fails), the two peers finish syncing over a reliable link within
///   ``SyncTarget/maxRounds`` rounds, or after both `reset()` their states
///   (what a client does when a link misbehaved: a forged message can tell a
///   peer that the other is up to date) within as many again, or, when the
///   receiver's state was read from the input (it may share heads nobody
///   has), with fresh states; to the heads and content a merge gives.
///
/// Every message an honest peer generates must decode, re-encode to the
/// same bytes and be accepted by the other.
enum SyncTarget {
    /// Rounds of reliable exchange in which the peers must converge.
    static let maxRounds = 30

    static func run(_ data: Data) throws(FuzzFailure) {
        let bytes = [UInt8](data)
        let setup = SyncSetup(selector: bytes.first ?? 0, variant: bytes.count > 1 ? bytes[1] : 0)
        let payload = bytes.dropFirst(2)
        let message = try decodedMessage(payload)
        let stateDecodes = try decodedState(payload) != nil
        let payloadState = setup.scenario == .restored && setup.payloadState && stateDecodes ? payload : nil
        try receive(Data(payload), decoded: message, setup, payloadState: payloadState)
    }

    // MARK: Decoding

    /// The message in `payload`, after the round-trip checks; nil when it does not decode.
    static func decodedMessage(_ payload: ArraySlice<UInt8>) throws(FuzzFailure) -> SyncMessage? {
        let message: SyncMessage
        do { message = try SyncMessage(decoding: payload) } catch {
            _ = String(describing: error)
            let viaData: SyncMessageError?
            do {
                _ = try SyncMessage(bytes: Data(payload))
                viaData = nil
            } catch let other {
                viaData = other
            }
            try Check.that(viaData == error, "sync: SyncMessage(bytes:) and SyncMessage(decoding:) disagree: \(viaData.map { "\($0)" } ?? "decodes"), \(error)")
            return nil
        }
        do {
            let viaData = try SyncMessage(bytes: Data(payload))
            try Check.that(viaData == message, "sync: SyncMessage(bytes:) and SyncMessage(decoding:) decode different messages")
        } catch {
            throw FuzzFailure("sync: SyncMessage(bytes:) refuses what SyncMessage(decoding:) decodes: \(error)")
        }
        let encoded = message.encoded()
        let again: SyncMessage
        do { again = try SyncMessage(decoding: encoded[...]) } catch {
            throw FuzzFailure("sync: a decoded message's encoded() form does not decode: \(error)")
        }
        try Check.that(again == message, "sync: decoding a message's encoded() form gives another message: \(describe(message)) became \(describe(again))")
        try Check.that(again.encoded() == encoded, "sync: a decoded message's encoded() form re-encodes to other bytes")
        // Probing received filters (their parameters are the sender's) must not trap.
        for have in message.have {
            for hash in (have.lastSync + message.heads + message.need).prefix(8) { _ = have.bloom.contains(hash) }
            _ = have.bloom.bytes
        }
        return message
    }

    /// The state in `payload`, after the round-trip checks; nil when it does not decode.
    @discardableResult
    static func decodedState(_ payload: ArraySlice<UInt8>) throws(FuzzFailure) -> SyncState? {
        let state: SyncState
        do { state = try SyncState(bytes: Data(payload)) } catch {
            _ = String(describing: error)
            guard error is DecodeSyncStateError else {
                throw FuzzFailure("sync: SyncState(bytes:) threw an untyped error \(type(of: error)): \(error)")
            }
            return nil
        }
        let encoded = [UInt8](state.encode())
        try Check.that(payload.starts(with: encoded), "sync: a decoded state re-encodes to bytes that do not start its input")
        let again: SyncState
        do { again = try SyncState(bytes: Data(encoded)) } catch {
            throw FuzzFailure("sync: a decoded state's encode() does not decode: \(error)")
        }
        try Check.that([UInt8](again.encode()) == encoded, "sync: a decoded state's encode() decodes to a state that encodes otherwise")
        try Check.that(again.sharedHeads == state.sharedHeads, "sync: a decoded state's encode() decodes to other shared heads")
        try Check.that(state.theirHeads == nil && !state.isReadOnly && !state.isPeerReadOnly,
                       "sync: a decoded state claims more than its shared heads")
        return state
    }

    // MARK: Receiving

    static func receive(_ payload: Data, decoded: SyncMessage?, _ setup: SyncSetup, payloadState: ArraySlice<UInt8>?) throws(FuzzFailure) {
        let (receiver, partner) = try SyncWorld.make(setup, payloadState: payloadState)
        let context = "sync (\(setup))"
        let before = Snapshot(receiver)
        let mirror = setup.withPatches ? PatchMirror(receiver.doc) : nil
        var patches: [Patch] = []
        do {
            if setup.withPatches {
                patches = try receiver.doc.receiveSyncMessageWithPatches(state: receiver.state, message: payload)
            } else {
                try receiver.doc.receiveSyncMessage(state: receiver.state, message: payload)
            }
        } catch let error as ReceiveSyncError {
            _ = error.description
            try refused(error, decoded: decoded, receiver, before, setup, payloadState: payloadState, context)
            return
        } catch {
            throw FuzzFailure("\(context): receiveSyncMessage threw an untyped error \(type(of: error)): \(error)")
        }
        guard let decoded else { throw FuzzFailure("\(context): a message that does not decode was accepted") }
        _ = receiver.doc.hasOurChanges(state: receiver.state)

        // What an accepted message may and may not change.
        let heads = receiver.doc.heads()
        for head in before.heads {
            try Check.that(receiver.doc.change(hash: head) != nil, "\(context): an old head \(head) left the history")
        }
        if decoded.changes.isEmpty || before.readOnly {
            let why = before.readOnly ? "a read-only state" : "a message without changes"
            try Check.that(heads == before.heads, "\(context): \(why) changed the heads")
            try Check.that(receiver.doc.save(compress: false) == before.saved, "\(context): \(why) changed the saved document")
            try Check.that(patches.isEmpty, "\(context): \(why) gave \(patches.count) patches")
        }
        if var patched = mirror {
            try patched.apply(patches)
            try patched.check(against: receiver.doc, "\(context): patches of an accepted message")
        }
        try Check.saveReload(receiver.doc, "\(context): after an accepted message")
        Check.readEverything(receiver.doc)

        // The peers can still finish syncing, unless the message brought
        // changes that conflict with the partner's (the same actor and
        // sequence number as one of its own, say): then no protocol can.
        if before.readOnly { receiver.state.isReadOnly = false }
        let merged = receiver.doc.fork()
        do {
            try merged.merge(other: partner.doc)
            try partner.doc.fork().merge(other: receiver.doc)
        } catch {
            return
        }
        try SyncWorld.converge(receiver, partner, setup, untrustedState: payloadState != nil, context)
        try Check.that(receiver.doc.heads() == merged.heads(), "\(context): syncing gives other heads than merging")
        try Check.sameContent(receiver.doc, partner.doc, "\(context): the peers after syncing")
        try Check.sameContent(receiver.doc, merged, "\(context): syncing against merging")
    }

    /// A refused message: nothing changed, not even what the receiver sends next.
    static func refused(_ error: ReceiveSyncError, decoded: SyncMessage?, _ receiver: SyncPeerUnderTest, _ before: Snapshot,
                        _ setup: SyncSetup, payloadState: ArraySlice<UInt8>?, _ context: String) throws(FuzzFailure) {
        switch (error.reason, decoded) {
        case (.invalidMessage, nil), (.changesRefused, _?): break
        default: throw FuzzFailure("\(context): refused with \(error), but the message \(decoded == nil ? "does not decode" : "decodes")")
        }
        let after = Snapshot(receiver)
        try Check.that(after.heads == before.heads, "\(context): a refused message changed the heads")
        try Check.that(after.saved == before.saved, "\(context): a refused message changed the saved document")
        try Check.that(after.state == before.state, "\(context): a refused message changed the state's encode()")
        try Check.that(after.properties == before.properties, "\(context): a refused message changed the state: \(before.properties) became \(after.properties)")
        guard decoded != nil else { return }  // refused before the document was locked

        // The same world, without the message.
        let (twin, _) = try SyncWorld.make(setup, payloadState: payloadState)
        let next = receiver.doc.generateSyncMessage(state: receiver.state)
        let twinNext = twin.doc.generateSyncMessage(state: twin.state)
        try Check.that(next == twinNext, "\(context): after a refused message the receiver sends \(next.map { "\($0.count) bytes" } ?? "nothing"), without it \(twinNext.map { "\($0.count) bytes" } ?? "nothing")")
    }

    /// What a refused message must leave as it was.
    struct Snapshot {
        let heads: Set<ChangeHash>
        let saved: Data
        let state: Data
        let properties: String
        let readOnly: Bool

        init(_ peer: SyncPeerUnderTest) {
            heads = peer.doc.heads()
            saved = peer.doc.save(compress: false)
            state = peer.state.encode()
            let theirHeads = peer.state.theirHeads.map { $0.sorted().map(\.description) }
            properties = "theirHeads \(theirHeads ?? ["nil"]), shared \(peer.state.sharedHeads.sorted().map(\.description)), readOnly \(peer.state.isReadOnly), peerReadOnly \(peer.state.isPeerReadOnly)"
            readOnly = peer.state.isReadOnly
        }
    }

    static func describe(_ message: SyncMessage) -> String {
        let filters = message.have.map { "(\($0.bloom.entryCount), \($0.bloom.bitsPerEntry), \($0.bloom.probeCount), \($0.bloom.bytes.count) bytes)" }
        return "\(message.version) heads \(message.heads.count) need \(message.need.count) have \(filters) changes \(message.changes.map(\.count)) flags \(message.flags.map { String($0.rawValue) } ?? "nil")"
    }
}

/// What the two selector bytes of a `sync` input choose.
struct SyncSetup: CustomStringConvertible {
    enum Scenario: UInt8, CaseIterable {
        /// A fresh empty document with a fresh state receives the message; its partner is the pair's second document.
        case fresh
        /// The pair synced for `rounds` rounds; then one of them receives the message.
        case midSession
        /// The same, the receiver's state read-only from the start.
        case readOnly
        /// The same, then both states saved and restored (the receiver's from the input itself with `payloadState`).
        case restored
    }

    let scenario: Scenario
    /// Which ``SyncDocuments`` pair.
    let pair: Int
    /// Rounds of honest sync before the message (0...3).
    let rounds: Int
    /// 0: the pair's first document receives the message; 1: the second.
    let receiver: Int
    /// `receiveSyncMessageWithPatches` instead of `receiveSyncMessage`.
    let withPatches: Bool
    /// In `restored`, the receiver's state is the input decoded as a saved state (when it decodes).
    let payloadState: Bool
    /// The link drops every flags trailer: both peers see the other as a Rust 0.5 peer and send V1 messages.
    let legacyLink: Bool

    init(selector: UInt8, variant: UInt8) {
        scenario = Scenario(rawValue: selector % 4)!
        pair = Int(selector / 4) % SyncDocuments.pairCount
        rounds = Int(variant & 3)
        receiver = Int(variant >> 2) & 1
        withPatches = variant & 0x08 != 0
        payloadState = variant & 0x10 != 0
        legacyLink = variant & 0x20 != 0
    }

    /// The two selector bytes for a setup (the seeds' prefix).
    static func bytes(_ scenario: Scenario, pair: Int, rounds: Int = 0, receiver: Int = 0, withPatches: Bool = false,
                      payloadState: Bool = false, legacyLink: Bool = false) -> [UInt8] {
        let selector = scenario.rawValue + UInt8(pair * 4)
        var variant = UInt8(min(rounds, 3)) | UInt8(receiver << 2)
        if withPatches { variant |= 0x08 }
        if payloadState { variant |= 0x10 }
        if legacyLink { variant |= 0x20 }
        return [selector, variant]
    }

    var description: String {
        "\(scenario), pair \(pair), \(rounds) rounds, receiver \(receiver)\(withPatches ? ", patches" : "")\(payloadState ? ", state from input" : "")\(legacyLink ? ", legacy link" : "")"
    }
}

/// A document and its sync state for one peer.
final class SyncPeerUnderTest {
    let name: String
    let doc: Document
    var state: SyncState

    init(_ name: String, _ doc: Document, _ state: SyncState = SyncState()) {
        self.name = name
        self.doc = doc
        self.state = state
    }
}

/// The peers of a `sync` input, built the same way on every run.
enum SyncWorld {
    /// The receiver of the input's message and its partner, as the setup says.
    static func make(_ setup: SyncSetup, payloadState: ArraySlice<UInt8>?) throws(FuzzFailure) -> (SyncPeerUnderTest, SyncPeerUnderTest) {
        let (first, second) = try SyncDocuments.pair(setup.pair)
        if setup.scenario == .fresh {
            let empty = Document()
            empty.actor = FixedActor.make(0x3F)
            return (SyncPeerUnderTest("fresh", empty), SyncPeerUnderTest("b", second))
        }
        let readOnly = setup.scenario == .readOnly
        let peers = [
            SyncPeerUnderTest("a", first, SyncState(readOnly: readOnly && setup.receiver == 0)),
            SyncPeerUnderTest("b", second, SyncState(readOnly: readOnly && setup.receiver == 1)),
        ]
        for _ in 0..<setup.rounds {
            try deliver(from: peers[0], to: peers[1], legacyLink: setup.legacyLink)
            try deliver(from: peers[1], to: peers[0], legacyLink: setup.legacyLink)
        }
        if setup.scenario == .restored {
            for peer in peers {
                do { peer.state = try SyncState(bytes: peer.state.encode()) } catch {
                    throw FuzzFailure("sync: a saved state does not decode: \(error)")
                }
            }
            if let payloadState {
                do { peers[setup.receiver].state = try SyncState(bytes: Data(payloadState)) } catch {
                    throw FuzzFailure("sync: the input decoded as a state once, not twice: \(error)")
                }
            }
        }
        return (peers[setup.receiver], peers[1 - setup.receiver])
    }

    /// `from` generates its next message and `to` receives it. Honest
    /// messages decode, re-encode to the same bytes and are accepted.
    /// Returns the message as delivered, nil when there was none.
    @discardableResult
    static func deliver(from: SyncPeerUnderTest, to: SyncPeerUnderTest, legacyLink: Bool) throws(FuzzFailure) -> Data? {
        guard let message = from.doc.generateSyncMessage(state: from.state) else { return nil }
        let delivered = try honest(message, from: from.name, legacyLink: legacyLink)
        do { try to.doc.receiveSyncMessage(state: to.state, message: delivered) } catch {
            throw FuzzFailure("sync: \(to.name) refused a message \(from.name) generated: \(error)")
        }
        return delivered
    }

    /// An honest message as the link delivers it.
    static func honest(_ message: Data, from name: String, legacyLink: Bool) throws(FuzzFailure) -> Data {
        var decoded: SyncMessage
        do { decoded = try SyncMessage(bytes: message) } catch {
            throw FuzzFailure("sync: a message \(name) generated does not decode: \(error)")
        }
        try Check.that(decoded.encode() == message, "sync: a message \(name) generated re-encodes to other bytes")
        guard legacyLink else { return message }
        decoded.flags = nil
        return decoded.encode()
    }

    /// Reliable rounds until neither peer sends (at most ``SyncTarget/maxRounds``);
    /// if the heads then differ, both reset their states and try again; a
    /// state from the input (it may claim heads nobody has) may need fresh
    /// states. The heads must end equal.
    static func converge(_ a: SyncPeerUnderTest, _ b: SyncPeerUnderTest, _ setup: SyncSetup, untrustedState: Bool,
                         _ context: String) throws(FuzzFailure) {
        if try session(a, b, setup) { return }
        a.state.reset()
        b.state.reset()
        if try session(a, b, setup) { return }
        if untrustedState {
            a.state = SyncState()
            b.state = SyncState()
            if try session(a, b, setup) { return }
        }
        let heads = [a, b].map { peer in "\(peer.name) \(peer.doc.heads().sorted().map { String($0.description.prefix(8)) })" }
        throw FuzzFailure("\(context): after the message the peers did not converge in \(SyncTarget.maxRounds) rounds, nor after resetting their states: \(heads.joined(separator: ", "))")
    }

    static func session(_ a: SyncPeerUnderTest, _ b: SyncPeerUnderTest, _ setup: SyncSetup) throws(FuzzFailure) -> Bool {
        _ = try transcript(a, b, legacyLink: setup.legacyLink)
        return a.doc.heads() == b.doc.heads()
    }

    /// Reliable rounds, `a` speaking first, until a round in which neither
    /// sends (at most `maxRounds`); every message as delivered, with its
    /// round and receiver (0: `a`, 1: `b`).
    static func transcript(_ a: SyncPeerUnderTest, _ b: SyncPeerUnderTest, legacyLink: Bool, firstRound: Int = 0,
                           maxRounds: Int = SyncTarget.maxRounds) throws(FuzzFailure) -> [(round: Int, to: Int, message: Data)] {
        var messages: [(round: Int, to: Int, message: Data)] = []
        for round in firstRound..<firstRound + maxRounds {
            let toB = try deliver(from: a, to: b, legacyLink: legacyLink)
            if let toB { messages.append((round, 1, toB)) }
            let toA = try deliver(from: b, to: a, legacyLink: legacyLink)
            if let toA { messages.append((round, 0, toA)) }
            if toA == nil && toB == nil { break }
        }
        return messages
    }
}

/// The `sync` target's pairs of small documents, built deterministically
/// (fixed actors, time 0), so that the seeds' messages fit them.
enum SyncDocuments {
    static let pairCount = 3

    /// Each pair's two documents saved (empty for an empty document). A
    /// plain array: LeakSanitizer misreads a global `Optional` holding heap objects.
    static let saved: [[UInt8]] = (try? make().flatMap { pair in
        [pair.0, pair.1].map { $0.heads().isEmpty ? [] : [UInt8]($0.save(compress: false)) }
    }) ?? []

    /// Fresh copies of pair `index`, writing as their fixed actors.
    static func pair(_ index: Int) throws(FuzzFailure) -> (Document, Document) {
        guard saved.count == pairCount * 2 else { throw FuzzFailure("sync: cannot build the documents") }
        func load(_ slot: Int) throws(FuzzFailure) -> Document {
            let bytes = saved[slot]
            let doc: Document
            do { doc = bytes.isEmpty ? Document() : try Document(Data(bytes)) } catch {
                throw FuzzFailure("sync: cannot load document \(slot): \(error)")
            }
            doc.actor = FixedActor.make(UInt8(0x30 + slot))
            return doc
        }
        return (try load(index * 2), try load(index * 2 + 1))
    }

    /// Diverged from a common base; one side empty, the other text; no shared history.
    static func make() throws -> [(Document, Document)] {
        func document(_ slot: Int) -> Document {
            let doc = Document()
            doc.actor = FixedActor.make(UInt8(0x30 + slot))
            return doc
        }
        // Pair 0: a base, then concurrent edits on both sides.
        let base = document(6)
        try base.put(obj: .ROOT, key: "title", value: .String("base"))
        let text = try base.putObject(obj: .ROOT, key: "text", ty: .Text)
        try base.spliceText(obj: text, start: 0, delete: 0, value: "Hello world")
        let list = try base.putObject(obj: .ROOT, key: "list", ty: .List)
        try base.insert(obj: list, index: 0, value: .Int(1))
        try base.insert(obj: list, index: 1, value: .String("two"))
        try base.put(obj: .ROOT, key: "count", value: .Counter(1))
        base.commitReproducibly(message: "base")
        let a0 = base.fork()
        a0.actor = FixedActor.make(0x30)
        try a0.spliceText(obj: text, start: 5, delete: 0, value: ", dear")
        try a0.put(obj: .ROOT, key: "a", value: .Int(1))
        a0.commitReproducibly()
        try a0.mark(obj: text, start: 0, end: 5, expand: .after, name: "bold", value: .Boolean(true))
        try a0.increment(obj: .ROOT, key: "count", by: 2)
        a0.commitReproducibly()
        let b0 = base.fork()
        b0.actor = FixedActor.make(0x31)
        try b0.put(obj: .ROOT, key: "title", value: .String("b"))
        try b0.insert(obj: list, index: 2, value: .F64(3.5))
        b0.commitReproducibly()
        try b0.delete(obj: list, index: 0)
        try b0.spliceText(obj: text, start: 11, delete: 0, value: "!")
        b0.commitReproducibly()
        try b0.increment(obj: .ROOT, key: "count", by: -1)
        b0.commitReproducibly()

        // Pair 1: an empty document, and one typed as prose.
        let a1 = document(2)
        let b1 = try SyncSeedDocuments.prose(actor: 0x33, sentences: 4)

        // Pair 2: two documents with no change in common, both writing the same keys.
        let a2 = document(4)
        try a2.put(obj: .ROOT, key: "title", value: .String("a"))
        let textA = try a2.putObject(obj: .ROOT, key: "text", ty: .Text)
        a2.commitReproducibly()
        try a2.spliceText(obj: textA, start: 0, delete: 0, value: "from a")
        a2.commitReproducibly()
        let b2 = document(5)
        try b2.put(obj: .ROOT, key: "title", value: .String("b"))
        let listB = try b2.putObject(obj: .ROOT, key: "text", ty: .List)
        try b2.insert(obj: listB, index: 0, value: .Null)
        b2.commitReproducibly()
        return [(a0, b0), (a1, b1), (a2, b2)]
    }
}

/// Documents for the `sync` target and its seeds.
enum SyncSeedDocuments {
    /// The opening of Moby-Dick (public domain), a sentence per change.
    static let sentences = [
        "Call me Ishmael. ",
        "Some years ago—never mind how long precisely—having little or no money in my purse, and nothing particular to interest me on shore, I thought I would sail about a little and see the watery part of the world. ",
        "It is a way I have of driving off the spleen and regulating the circulation. ",
        "Whenever I find myself growing grim about the mouth; whenever it is a damp, drizzly November in my soul; ",
        "whenever I find myself involuntarily pausing before coffin warehouses, and bringing up the rear of every funeral I meet; ",
        "and especially whenever my hypos get such an upper hand of me, that it requires a strong moral principle to prevent me from deliberately stepping into the street, and methodically knocking people’s hats off—",
        "then, I account it high time to get to sea as soon as I can. ",
        "This is my substitute for pistol and ball. ",
        "With a philosophical flourish Cato throws himself upon his sword; I quietly take to the ship. ",
        "There is nothing surprising in this. ",
        "If they but knew it, almost all men in their degree, some time or other, cherish very nearly the same feelings towards the ocean with me.",
    ]

    /// A document whose text "text" is typed a sentence per change, with a
    /// correction and a mark now and then, and a title.
    static func prose(actor: UInt8, sentences count: Int) throws -> Document {
        let doc = Document()
        doc.actor = FixedActor.make(actor)
        try doc.put(obj: .ROOT, key: "title", value: .String("Moby-Dick"))
        let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        doc.commitReproducibly(message: "title")
        var length: UInt64 = 0
        for (index, sentence) in sentences.prefix(count).enumerated() {
            try doc.spliceText(obj: text, start: length, delete: 0, value: sentence)
            length += UInt64(sentence.unicodeScalars.count)
            if index % 3 == 2 {
                try doc.spliceText(obj: text, start: length - 2, delete: 1, value: ";")
                try doc.mark(obj: text, start: length - 10, end: length - 2, expand: .none, name: "em", value: .Boolean(true))
            }
            doc.commitReproducibly()
        }
        return doc
    }
}
