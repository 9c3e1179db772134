import Automerge
import Foundation

/// The scenarios of the valid vectors, by category.
enum ValidVectors {
    static func add(to b: inout VectorBuilder) throws {
        try ops(&b)
        try scalars(&b)
        try text(&b)
        try marks(&b)
        try counters(&b)
        try conflicts(&b)
        try lists(&b)
        try nested(&b)
        try actors(&b)
        try history(&b)
        try chunks(&b)
        try encoding(&b)
    }

    // MARK: Op kinds

    static func ops(_ b: inout VectorBuilder) throws {
        try b.valid("ops", "empty-document", "a document with no changes (the 14-byte empty file)", Fixed.doc())

        var doc = Fixed.doc()
        let m = try doc.putObject(obj: .ROOT, key: "map", ty: .Map)
        try doc.put(obj: m, key: "k", value: .String("v"))
        try b.valid("ops", "make-map", "makeMap and set in a nested map", doc)

        doc = Fixed.doc()
        let l = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        try doc.insert(obj: l, index: 0, value: .Int(1))
        try doc.insert(obj: l, index: 1, value: .Int(2))
        try b.valid("ops", "make-list", "makeList and inserts", doc)

        doc = Fixed.doc()
        let t = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: t, start: 0, delete: 0, value: "abc")
        try b.valid("ops", "make-text", "makeText and one insert op per character", doc)

        doc = Fixed.doc()
        try doc.put(obj: .ROOT, key: "a", value: .Int(1))
        try doc.put(obj: .ROOT, key: "b", value: .String("x"))
        try b.valid("ops", "set-root-keys", "set ops on the root map", doc)

        doc = Fixed.doc()
        try doc.put(obj: .ROOT, key: "gone", value: .Int(1))
        try doc.put(obj: .ROOT, key: "kept", value: .Int(2))
        Fixed.commit(doc, 1)
        try doc.delete(obj: .ROOT, key: "gone")
        try b.valid("ops", "delete-map-key", "a map delete (stored only as a successor)", doc)

        doc = Fixed.doc()
        let l2 = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        for i in 0..<4 { try doc.insert(obj: l2, index: UInt64(i), value: .Int(Int64(i))) }
        Fixed.commit(doc, 1)
        try doc.delete(obj: l2, index: 1)
        try b.valid("ops", "delete-list-element", "a list delete; the element stays in the op set", doc)

        doc = Fixed.doc()
        try doc.put(obj: .ROOT, key: "c", value: .Counter(10))
        Fixed.commit(doc, 1)
        try doc.increment(obj: .ROOT, key: "c", by: 5)
        try b.valid("ops", "increment", "inc ops on a counter", doc)

        doc = Fixed.doc()
        let t2 = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: t2, start: 0, delete: 0, value: "hello")
        try doc.mark(obj: t2, start: 1, end: 4, expand: .after, name: "bold", value: .Boolean(true))
        try b.valid("ops", "mark", "mark begin/end ops (action 7, expand and mark name columns)", doc)

        try doc.mark(obj: t2, start: 2, end: 3, expand: .after, name: "bold", value: .Null)
        try b.valid("ops", "unmark", "a mark with a null value hides the name", doc)

        doc = Fixed.doc()
        let l3 = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        let inner = try doc.insertObject(obj: l3, index: 0, ty: .Map)
        try doc.put(obj: inner, key: "x", value: .Int(1))
        _ = try doc.insertObject(obj: l3, index: 1, ty: .Text)
        _ = try doc.insertObject(obj: l3, index: 2, ty: .List)
        try b.valid("ops", "insert-objects", "insert ops that make maps, text and lists in a list", doc)

        doc = Fixed.doc()
        let l4 = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        try doc.insert(obj: l4, index: 0, value: .Int(1))
        Fixed.commit(doc, 1)
        _ = try doc.putObject(obj: l4, index: 0, ty: .Map)
        try b.valid("ops", "put-object-at-index", "a make op that overwrites a list element", doc)

        doc = Fixed.doc()
        let l5 = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        try doc.splice(obj: l5, start: 0, delete: 0, values: [.Int(1), .Int(2), .Int(3), .Int(4)])
        Fixed.commit(doc, 1)
        try doc.splice(obj: l5, start: 1, delete: 2, values: [.String("x")])
        try b.valid("ops", "splice-list", "splice: inserts first, then one delete per removed element", doc)

        doc = Fixed.doc()
        let t3 = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: t3, start: 0, delete: 0, value: "the quick fox")
        Fixed.commit(doc, 1)
        try doc.updateText(obj: t3, value: "the slow brown fox")
        try b.valid("ops", "update-text", "updateText's minimal diff as splices", doc)

        doc = Fixed.doc()
        try doc.put(obj: .ROOT, key: "k", value: .Int(1))
        Fixed.commit(doc, 1)
        try doc.put(obj: .ROOT, key: "k", value: .Int(1))
        try doc.put(obj: .ROOT, key: "other", value: .Int(2))
        try b.valid("ops", "put-same-value", "a put equal to the current value makes no op", doc)

        doc = Fixed.doc("aa")
        try doc.put(obj: .ROOT, key: "k", value: .Int(1))
        var peer = Fixed.fork(doc, "bb")
        try peer.put(obj: .ROOT, key: "k", value: .Int(2))
        try doc.put(obj: .ROOT, key: "k", value: .Int(3))
        try doc.merge(other: peer)
        Fixed.commit(doc, 1)
        try doc.put(obj: .ROOT, key: "k", value: .Int(3))
        try b.valid("ops", "confirm-conflict-winner", "a put equal to a conflict's winner deletes the losers", doc)

        doc = Fixed.doc()
        let table = try doc.putObject(obj: .ROOT, key: "table", ty: .Map)
        try doc.put(obj: table, key: "row", value: .String("r"))
        let bytes = try Storage.patchActions(of: doc, from: 0, to: 6)
        try b.valid("ops", "make-table", "makeTable (action 6, legacy; dumps as a table)", bytes)

        doc = Fixed.doc()
        try doc.put(obj: .ROOT, key: "a", value: .Int(1))
        peer = Fixed.fork(doc, "bb")
        try peer.delete(obj: .ROOT, key: "a")
        try doc.put(obj: .ROOT, key: "a", value: .Int(2))
        try doc.merge(other: peer)
        try b.valid("ops", "delete-concurrent-with-put", "a delete and a put of the same key, concurrently: the put survives", doc)
    }

    // MARK: Scalars

    static let scalarCases: [(String, ScalarValue)] = [
        ("int-zero", .Int(0)), ("int-one", .Int(1)), ("int-minus-one", .Int(-1)), ("int-63", .Int(63)),
        ("int-64", .Int(64)), ("int-minus-64", .Int(-64)), ("int-minus-65", .Int(-65)),
        ("int-2-pow-31", .Int(1 << 31)), ("int-2-pow-53-plus-1", .Int((1 << 53) + 1)),
        ("int-min", .Int(Int64.min)), ("int-max", .Int(Int64.max)),
        ("uint-zero", .Uint(0)), ("uint-127", .Uint(127)), ("uint-128", .Uint(128)),
        ("uint-2-pow-63", .Uint(1 << 63)), ("uint-max", .Uint(UInt64.max)),
        ("f64-zero", .F64(0.0)), ("f64-negative-zero", .F64(-0.0)), ("f64-one-half", .F64(0.5)),
        ("f64-pi", .F64(Double.pi)), ("f64-infinity", .F64(.infinity)), ("f64-negative-infinity", .F64(-.infinity)),
        ("f64-nan", .F64(.nan)), ("f64-nan-payload", .F64(Double(bitPattern: 0x7FF8_0000_DEAD_BEEF))),
        ("f64-signalling-nan", .F64(Double(bitPattern: 0x7FF0_0000_0000_0001))),
        ("f64-negative-nan", .F64(Double(bitPattern: 0xFFF8_0000_0000_0000))),
        ("f64-smallest-subnormal", .F64(.leastNonzeroMagnitude)), ("f64-largest", .F64(.greatestFiniteMagnitude)),
        ("f64-negative-largest", .F64(-.greatestFiniteMagnitude)),
        ("str-empty", .String("")), ("str-ascii", .String("hello")), ("str-nul", .String("a\u{0}b")),
        ("str-astral", .String("𝄞😀")), ("str-combining", .String("e\u{301}")),
        ("str-300-bytes", .String(String(repeating: "abc", count: 100))),
        ("bytes-empty", .Bytes(Data())), ("bytes-all-values", .Bytes(Data(0...255))),
        ("bool-true", .Boolean(true)), ("bool-false", .Boolean(false)), ("null", .Null),
        ("timestamp-zero", .Timestamp(Date(timeIntervalSince1970: 0))),
        ("timestamp-negative", .Timestamp(Date(timeIntervalSince1970: -1_000_000.5))),
        ("timestamp-milliseconds", .Timestamp(Date(timeIntervalSince1970: 1_700_000_000.123))),
        ("timestamp-max", .Timestamp(Date(timeIntervalSince1970: 1e17))),
        ("timestamp-min", .Timestamp(Date(timeIntervalSince1970: -1e17))),
        ("counter-zero", .Counter(0)), ("counter-negative", .Counter(-42)),
        ("counter-min", .Counter(Int64.min)), ("counter-max", .Counter(Int64.max)),
    ]

    static func scalars(_ b: inout VectorBuilder) throws {
        for (name, value) in scalarCases {
            let doc = Fixed.doc()
            try doc.put(obj: .ROOT, key: "v", value: value)
            try b.valid("scalars", name, "the scalar \(value) as a map value", doc)
        }
        for code in UInt8(10)...15 {
            let doc = Fixed.doc()
            try doc.put(obj: .ROOT, key: "v", value: .Unknown(typeCode: code, data: Data([code, 0xFF, 0])))
            try doc.put(obj: .ROOT, key: "empty", value: .Unknown(typeCode: code, data: Data()))
            try b.valid("scalars", "unknown-type-\(code)", "values with unknown type code \(code), kept verbatim", doc)
        }
        let doc = Fixed.doc()
        let list = try doc.putObject(obj: .ROOT, key: "all", ty: .List)
        for (index, (_, value)) in scalarCases.enumerated() {
            try doc.insert(obj: list, index: UInt64(index), value: value)
        }
        try b.valid("scalars", "all-in-one-list", "every scalar case as list elements (value column with literal runs of mixed types)", doc)
        try b.valid("scalars", "all-in-one-list-uncompressed", "the same document saved without column compression", doc, compress: false)
    }

    // MARK: Text

    static let scripts: [(String, String)] = [
        ("latin", "Hello, world"), ("latin-accents", "Ça déjà vu, naïve façade"), ("greek", "Καλημέρα κόσμε"),
        ("cyrillic", "Съешь же ещё этих мягких булок"), ("arabic", "مرحبا بالعالم"), ("hebrew", "שלום עולם"),
        ("devanagari", "नमस्ते दुनिया"), ("thai", "สวัสดีชาวโลก"), ("chinese", "你好，世界"), ("japanese", "こんにちは、カタカナ"),
        ("korean", "안녕하세요 세계"), ("emoji-astral", "😀🎉🚀"), ("skin-tones", "👍🏽👋🏿"),
        ("zwj-sequences", "👨‍👩‍👧‍👦 🏳️‍🌈 👩‍💻"), ("flags", "🇯🇵🇫🇷🇧🇷🇺🇳"),
        ("combining-marks", "e\u{301} a\u{308}\u{301} Z\u{355}\u{34D}\u{35A}"),
        ("math-alphanumerics", "𝐀𝐁𝐂 𝔘𝔫𝔦𝔠𝔬𝔡𝔢"), ("mixed-directions", "abc مرحبا 123 שלום"),
        ("control-characters", "tab\there\nnew line\r\n\u{7F}"), ("bmp-edges", "\u{FFFD}\u{FEFF}\u{E000}\u{D7FF}"),
    ]

    static func text(_ b: inout VectorBuilder) throws {
        for (name, string) in scripts {
            let doc = Fixed.doc()
            let t = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
            try doc.spliceText(obj: t, start: 0, delete: 0, value: string)
            try b.valid("text", name, "text in \(name): one op per Unicode scalar", doc)
        }
        var doc = Fixed.doc()
        var t = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: t, start: 0, delete: 0, value: "hello world")
        Fixed.commit(doc, 1)
        try doc.spliceText(obj: t, start: 5, delete: 6, value: ", 🌍!")
        Fixed.commit(doc, 2)
        try doc.spliceText(obj: t, start: 0, delete: 1, value: "J")
        try b.valid("text", "edits", "inserts and deletes in the middle; deleted characters remain as ops", doc)

        doc = Fixed.doc()
        t = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: t, start: 0, delete: 0, value: "gone")
        Fixed.commit(doc, 1)
        try doc.spliceText(obj: t, start: 0, delete: 4)
        try b.valid("text", "all-deleted", "a text whose every character was deleted", doc)

        doc = Fixed.doc("aa")
        t = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: t, start: 0, delete: 0, value: "ac")
        var peer = Fixed.fork(doc, "bb")
        try doc.spliceText(obj: t, start: 1, delete: 0, value: "XYZ")
        try peer.spliceText(obj: t, start: 1, delete: 0, value: "123")
        try doc.merge(other: peer)
        try b.valid("text", "concurrent-inserts", "two peers typing at the same position: runs do not interleave", doc)

        doc = Fixed.doc("aa")
        t = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: t, start: 0, delete: 0, value: "abcdef")
        peer = Fixed.fork(doc, "bb")
        try doc.spliceText(obj: t, start: 1, delete: 3)
        try peer.spliceText(obj: t, start: 3, delete: 0, value: "🙂")
        try doc.merge(other: peer)
        try b.valid("text", "insert-into-deleted-range", "an insert concurrent with a delete around its position", doc)

        doc = Fixed.doc()
        t = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<60 {
            let length = doc.length(obj: t)
            let at = UInt64.random(in: 0...length, using: &rng)
            let delete = Int64(min(UInt64.random(in: 0...3, using: &rng), length - at))
            try doc.spliceText(obj: t, start: at, delete: delete, value: RandomEdits.snippets.randomElement(using: &rng)!)
        }
        try b.valid("text", "long-edited", "a long text with many scripts, edited at seeded random positions (deflated columns)", doc)

        doc = Fixed.doc()
        t = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: t, start: 0, delete: 0, value: "")
        try doc.put(obj: .ROOT, key: "other", value: .Int(1))
        try b.valid("text", "empty", "an empty text object", doc)

        doc = Document(textEncoding: .graphemeCluster)
        doc.actor = ActorId(hexString: "aa")!
        t = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: t, start: 0, delete: 0, value: "👨‍👩‍👧e\u{301}🇯🇵")
        try b.valid("text", "grapheme-elements", "text elements that hold whole grapheme clusters (several scalars per op)", doc)
    }

    // MARK: Marks

    static func marks(_ b: inout VectorBuilder) throws {
        let modes: [(String, ExpandMark)] = [("before", .before), ("after", .after), ("both", .both), ("none", .none)]
        for (label, expand) in modes {
            func base() throws -> (Document, ObjId) {
                let doc = Fixed.doc("aa")
                let t = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
                try doc.spliceText(obj: t, start: 0, delete: 0, value: "hello world")
                try doc.mark(obj: t, start: 2, end: 5, expand: expand, name: "bold", value: .Boolean(true))
                Fixed.commit(doc, 1)
                return (doc, t)
            }
            var (doc, t) = try base()
            try b.valid("marks", "expand-\(label)", "a mark with expand \(label)", doc)

            (doc, t) = try base()
            try doc.spliceText(obj: t, start: 2, delete: 0, value: "<")
            try b.valid("marks", "expand-\(label)-insert-at-start", "text inserted at the start of an expand-\(label) mark", doc)

            (doc, t) = try base()
            try doc.spliceText(obj: t, start: 5, delete: 0, value: ">")
            try b.valid("marks", "expand-\(label)-insert-at-end", "text inserted at the end of an expand-\(label) mark", doc)

            (doc, t) = try base()
            let peer = Fixed.fork(doc, "bb")
            try peer.spliceText(obj: t, start: 5, delete: 0, value: "!!")
            try doc.spliceText(obj: t, start: 2, delete: 0, value: "__")
            try doc.merge(other: peer)
            try b.valid("marks", "expand-\(label)-concurrent-edges", "concurrent inserts at both edges of an expand-\(label) mark", doc)

            (doc, t) = try base()
            try doc.spliceText(obj: t, start: 2, delete: 3)
            try doc.spliceText(obj: t, start: 2, delete: 0, value: "new")
            try b.valid("marks", "expand-\(label)-text-replaced", "all marked text deleted, then text inserted where it was", doc)
        }

        var doc = Fixed.doc()
        var t = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: t, start: 0, delete: 0, value: "overlapping marks")
        try doc.mark(obj: t, start: 0, end: 7, expand: .after, name: "bold", value: .Boolean(true))
        try doc.mark(obj: t, start: 4, end: 12, expand: .none, name: "italic", value: .Boolean(true))
        try doc.mark(obj: t, start: 12, end: 17, expand: .both, name: "link", value: .String("https://example.com"))
        try doc.mark(obj: t, start: 3, end: 5, expand: .before, name: "size", value: .Int(-3))
        try doc.mark(obj: t, start: 5, end: 6, expand: .after, name: "weight", value: .F64(1.5))
        try b.valid("marks", "overlapping-and-typed", "overlapping marks with string, int, float and boolean values", doc)

        doc = Fixed.doc()
        t = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: t, start: 0, delete: 0, value: "abcdef")
        try doc.mark(obj: t, start: 0, end: 6, expand: .after, name: "bold", value: .Boolean(true))
        Fixed.commit(doc, 1)
        try doc.mark(obj: t, start: 2, end: 4, expand: .after, name: "bold", value: .Null)
        try b.valid("marks", "unmark-middle", "unmarking the middle of a mark splits it", doc)

        doc = Fixed.doc()
        t = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: t, start: 0, delete: 0, value: "zero")
        try doc.mark(obj: t, start: 2, end: 2, expand: .after, name: "anchor", value: .Boolean(true))
        try doc.mark(obj: t, start: 4, end: 4, expand: .both, name: "anchor2", value: .Boolean(true))
        try b.valid("marks", "zero-width", "zero-width marks (no visible span; their ops must load in order)", doc)

        doc = Fixed.doc("aa")
        t = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: t, start: 0, delete: 0, value: "contested")
        var peer = Fixed.fork(doc, "bb")
        try doc.mark(obj: t, start: 0, end: 6, expand: .after, name: "color", value: .String("red"))
        try peer.mark(obj: t, start: 3, end: 9, expand: .after, name: "color", value: .String("blue"))
        try doc.merge(other: peer)
        try b.valid("marks", "concurrent-same-name", "concurrent marks of one name: the higher op id wins where they overlap", doc)

        doc = Fixed.doc("aa")
        t = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: t, start: 0, delete: 0, value: "bold text")
        try doc.mark(obj: t, start: 0, end: 9, expand: .after, name: "bold", value: .Boolean(true))
        peer = Fixed.fork(doc, "bb")
        try peer.mark(obj: t, start: 0, end: 4, expand: .after, name: "bold", value: .Null)
        try doc.spliceText(obj: t, start: 9, delete: 0, value: "!")
        try doc.merge(other: peer)
        try b.valid("marks", "concurrent-unmark", "an unmark concurrent with typing inside the mark", doc)

        doc = Fixed.doc()
        t = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: t, start: 0, delete: 0, value: "😀👨‍👩‍👧🇯🇵x")
        try doc.mark(obj: t, start: 1, end: 6, expand: .both, name: "emoji", value: .Boolean(true))
        try b.valid("marks", "astral-positions", "mark positions counted in Unicode code points over astral text", doc)

        doc = Fixed.doc()
        t = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.spliceText(obj: t, start: 0, delete: 0, value: "many marks here")
        for i in 0..<12 {
            try doc.mark(obj: t, start: UInt64(i), end: UInt64(i + 3), expand: .after, name: "m\(i % 3)", value: .Int(Int64(i)))
        }
        try b.valid("marks", "many-marks", "many overlapping marks of three names (mark name column runs)", doc)
    }

    // MARK: Counters

    static func counters(_ b: inout VectorBuilder) throws {
        var doc = Fixed.doc()
        try doc.put(obj: .ROOT, key: "c", value: .Counter(0))
        for i in 1...20 {
            try doc.increment(obj: .ROOT, key: "c", by: Int64(i % 2 == 0 ? i : -i))
            Fixed.commit(doc, i)
        }
        try b.valid("counters", "many-increments", "twenty positive and negative increments in separate changes", doc)

        for peers in [2, 3, 5] {
            doc = Fixed.doc("a0")
            try doc.put(obj: .ROOT, key: "c", value: .Counter(100))
            let others = (1..<peers).map { Fixed.fork(doc, String(format: "a%x", $0)) }
            for (index, peer) in ([doc] + others).enumerated() {
                try peer.increment(obj: .ROOT, key: "c", by: Int64(index + 1) * 10)
                try peer.increment(obj: .ROOT, key: "c", by: -1)
            }
            try Fixed.mergeAll([doc] + others)
            try b.valid("counters", "concurrent-\(peers)-peers", "concurrent increments from \(peers) peers add up", doc)
        }

        doc = Fixed.doc("aa")
        try doc.put(obj: .ROOT, key: "c", value: .Counter(1))
        var peer = Fixed.fork(doc, "bb")
        try peer.increment(obj: .ROOT, key: "c", by: 5)
        try doc.put(obj: .ROOT, key: "c", value: .Int(7))
        try doc.merge(other: peer)
        try b.valid("counters", "increment-concurrent-with-put", "a put concurrent with an increment: the increment is lost", doc)

        doc = Fixed.doc("aa")
        try doc.put(obj: .ROOT, key: "c", value: .Counter(1))
        peer = Fixed.fork(doc, "bb")
        try peer.increment(obj: .ROOT, key: "c", by: 5)
        try doc.delete(obj: .ROOT, key: "c")
        try doc.merge(other: peer)
        try b.valid("counters", "increment-concurrent-with-delete", "a delete concurrent with an increment removes the counter", doc)

        doc = Fixed.doc()
        try doc.put(obj: .ROOT, key: "c", value: .Counter(3))
        try doc.increment(obj: .ROOT, key: "c", by: 4)
        Fixed.commit(doc, 1)
        try doc.put(obj: .ROOT, key: "c", value: .Counter(0))
        try doc.increment(obj: .ROOT, key: "c", by: 2)
        try b.valid("counters", "reset", "a counter replaced by a new counter", doc)

        doc = Fixed.doc("aa")
        let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        try doc.insert(obj: list, index: 0, value: .Counter(0))
        try doc.insert(obj: list, index: 1, value: .Counter(10))
        peer = Fixed.fork(doc, "bb")
        try doc.increment(obj: list, index: 0, by: 1)
        try peer.increment(obj: list, index: 0, by: 2)
        try peer.increment(obj: list, index: 1, by: -20)
        try doc.merge(other: peer)
        try b.valid("counters", "in-list-concurrent", "counters as list elements with concurrent increments", doc)

        doc = Fixed.doc("aa")
        try doc.put(obj: .ROOT, key: "c", value: .Counter(0))
        peer = Fixed.fork(doc, "bb")
        try doc.put(obj: .ROOT, key: "c", value: .Counter(50))
        try peer.increment(obj: .ROOT, key: "c", by: 1)
        try doc.merge(other: peer)
        try b.valid("counters", "concurrent-reset-and-increment", "a counter replaced while another peer increments the old one", doc)

        doc = Fixed.doc("aa")
        try doc.put(obj: .ROOT, key: "c", value: .Counter(Int64.max - 1))
        try doc.increment(obj: .ROOT, key: "c", by: 1)
        try doc.put(obj: .ROOT, key: "d", value: .Counter(Int64.min + 1))
        try doc.increment(obj: .ROOT, key: "d", by: -1)
        try b.valid("counters", "extremes", "counters incremented up to Int64.max and down to Int64.min", doc)
    }

    // MARK: Conflicts

    static func conflicts(_ b: inout VectorBuilder) throws {
        for peers in [2, 3, 5] {
            let doc = Fixed.doc("c0")
            try doc.put(obj: .ROOT, key: "base", value: .Int(0))
            let others = (1..<peers).map { Fixed.fork(doc, String(format: "c%x", $0)) }
            for (index, peer) in ([doc] + others).enumerated() {
                try peer.put(obj: .ROOT, key: "k", value: .Int(Int64(index)))
            }
            try Fixed.mergeAll([doc] + others)
            try b.valid("conflicts", "map-\(peers)-peers", "\(peers) concurrent puts of one key: the highest op id wins", doc)
        }

        var doc = Fixed.doc("aa")
        var peer = Fixed.fork(doc, "bb")
        try doc.put(obj: .ROOT, key: "k", value: .String("text"))
        try peer.put(obj: .ROOT, key: "k", value: .F64(2.5))
        try doc.merge(other: peer)
        try b.valid("conflicts", "different-types", "a conflict between a string and a float", doc)

        doc = Fixed.doc("aa")
        peer = Fixed.fork(doc, "bb")
        let mine = try doc.putObject(obj: .ROOT, key: "obj", ty: .Map)
        try doc.put(obj: mine, key: "from", value: .String("aa"))
        let theirs = try peer.putObject(obj: .ROOT, key: "obj", ty: .List)
        try peer.insert(obj: theirs, index: 0, value: .String("bb"))
        try doc.merge(other: peer)
        try b.valid("conflicts", "objects", "two objects created concurrently at one key", doc)

        doc = Fixed.doc("bb")
        peer = Fixed.fork(doc, "aa")
        _ = try doc.putObject(obj: .ROOT, key: "x", ty: .Text)
        try peer.put(obj: .ROOT, key: "x", value: .Null)
        try doc.merge(other: peer)
        try b.valid("conflicts", "object-versus-scalar", "an object and a null put concurrently", doc)

        doc = Fixed.doc("aa")
        let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        try doc.insert(obj: list, index: 0, value: .Int(0))
        peer = Fixed.fork(doc, "bb")
        try doc.put(obj: list, index: 0, value: .Int(1))
        try peer.put(obj: list, index: 0, value: .Int(2))
        try doc.merge(other: peer)
        try b.valid("conflicts", "list-element", "concurrent puts of one list element", doc)

        /// Two peers' concurrent puts of "k", merged and committed.
        func conflicted() throws -> Document {
            let doc = Fixed.doc("aa"), peer = Fixed.fork(doc, "bb")
            try doc.put(obj: .ROOT, key: "k", value: .Int(1))
            try peer.put(obj: .ROOT, key: "k", value: .Int(2))
            try doc.merge(other: peer)
            Fixed.commit(doc, 1)
            return doc
        }
        doc = try conflicted()
        try doc.put(obj: .ROOT, key: "k", value: .Int(3))
        try b.valid("conflicts", "resolved-by-put", "a put after a conflict overwrites every value", doc)

        doc = try conflicted()
        try doc.delete(obj: .ROOT, key: "k")
        try b.valid("conflicts", "resolved-by-delete", "a delete after a conflict removes every value", doc)

        doc = Fixed.doc("aa")
        let inner = try doc.putObject(obj: .ROOT, key: "inner", ty: .Map)
        peer = Fixed.fork(doc, "bb")
        let third = Fixed.fork(doc, "cc")
        try doc.put(obj: inner, key: "k", value: .Int(1))
        try peer.put(obj: inner, key: "k", value: .Int(2))
        try third.delete(obj: .ROOT, key: "inner")
        try Fixed.mergeAll([doc, peer, third])
        try b.valid("conflicts", "inside-deleted-object", "a conflict inside an object another peer deleted", doc)
    }

    // MARK: Lists

    static func lists(_ b: inout VectorBuilder) throws {
        for peers in [2, 3] {
            let doc = Fixed.doc("d0")
            let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
            try doc.insert(obj: list, index: 0, value: .String("first"))
            let others = (1..<peers).map { Fixed.fork(doc, String(format: "d%x", $0)) }
            for (index, peer) in ([doc] + others).enumerated() {
                try peer.insert(obj: list, index: 1, value: .Int(Int64(index)))
                try peer.insert(obj: list, index: 0, value: .Int(Int64(index) + 10))
            }
            try Fixed.mergeAll([doc] + others)
            try b.valid("lists", "concurrent-inserts-\(peers)-peers", "RGA: concurrent inserts at one position, higher op id first", doc)
        }

        var doc = Fixed.doc("aa")
        var list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        try doc.splice(obj: list, start: 0, delete: 0, values: [.Int(1), .Int(2), .Int(3)])
        var peer = Fixed.fork(doc, "bb")
        try doc.delete(obj: list, index: 1)
        try peer.insert(obj: list, index: 2, value: .String("after-2"))
        try doc.merge(other: peer)
        try b.valid("lists", "insert-after-deleted", "an insert after an element deleted concurrently", doc)

        doc = Fixed.doc("aa")
        list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        try doc.splice(obj: list, start: 0, delete: 0, values: [.Int(1), .Int(2)])
        peer = Fixed.fork(doc, "bb")
        try doc.delete(obj: list, index: 0)
        try peer.put(obj: list, index: 0, value: .String("updated"))
        try doc.merge(other: peer)
        try b.valid("lists", "update-concurrent-with-delete", "an update concurrent with a delete keeps the element", doc)

        doc = Fixed.doc()
        list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        for i in 0..<500 { try doc.insert(obj: list, index: UInt64(i), value: .Int(Int64(i * i))) }
        try b.valid("lists", "long", "500 elements (deflated op columns)", doc)

        doc = Fixed.doc()
        list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        for i in 0..<40 { try doc.insert(obj: list, index: 0, value: .Int(Int64(i))) }
        try b.valid("lists", "prepended", "every element inserted at the front (negative deltas in the op id column)", doc)

        doc = Fixed.doc()
        list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        try doc.splice(obj: list, start: 0, delete: 0, values: (0..<10).map { .Int($0) })
        Fixed.commit(doc, 1)
        try doc.splice(obj: list, start: 0, delete: 10, values: [])
        try b.valid("lists", "all-deleted", "a list whose elements were all deleted", doc)

        doc = Fixed.doc()
        list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        try doc.splice(obj: list, start: 0, delete: 0, values: (0..<10).map { .Int($0) })
        Fixed.commit(doc, 1)
        try doc.splice(obj: list, start: 2, delete: 3, values: [.String("a"), .String("b")])
        try doc.splice(obj: list, start: 6, delete: -2, values: [])
        try b.valid("lists", "splices", "splices with positive and negative delete counts", doc)

        doc = Fixed.doc("aa")
        list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        peer = Fixed.fork(doc, "bb")
        for i in 0..<5 {
            try doc.insert(obj: list, index: UInt64(i), value: .String("a\(i)"))
            try peer.insert(obj: list, index: UInt64(i), value: .String("b\(i)"))
        }
        try doc.merge(other: peer)
        try b.valid("lists", "concurrent-runs", "two peers each appending a run into an empty list", doc)

        doc = Fixed.doc()
        list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        let sub = try doc.insertObject(obj: list, index: 0, ty: .List)
        let subsub = try doc.insertObject(obj: sub, index: 0, ty: .List)
        try doc.insert(obj: subsub, index: 0, value: .Int(1))
        try doc.insert(obj: sub, index: 1, value: .Int(2))
        try doc.insert(obj: list, index: 1, value: .Int(3))
        try b.valid("lists", "nested-lists", "lists in lists in lists", doc)

        doc = Fixed.doc("aa")
        list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        try doc.splice(obj: list, start: 0, delete: 0, values: [.Int(1), .Int(2), .Int(3)])
        peer = Fixed.fork(doc, "bb")
        try doc.delete(obj: list, index: 1)
        try peer.delete(obj: list, index: 1)
        try doc.merge(other: peer)
        try b.valid("lists", "double-delete", "the same element deleted by two peers", doc)
    }

    // MARK: Nesting

    static func nested(_ b: inout VectorBuilder) throws {
        var doc = Fixed.doc()
        var obj = ObjId.ROOT
        for depth in 0..<30 { obj = try doc.putObject(obj: obj, key: "level\(depth)", ty: .Map) }
        try doc.put(obj: obj, key: "bottom", value: .Boolean(true))
        try b.valid("nested", "deep-maps", "maps nested 30 deep", doc)

        doc = Fixed.doc()
        obj = try doc.putObject(obj: .ROOT, key: "l", ty: .List)
        for _ in 0..<30 { obj = try doc.insertObject(obj: obj, index: 0, ty: .List) }
        try doc.insert(obj: obj, index: 0, value: .String("bottom"))
        try b.valid("nested", "deep-lists", "lists nested 30 deep", doc)

        doc = Fixed.doc()
        let people = try doc.putObject(obj: .ROOT, key: "people", ty: .List)
        for (index, name) in ["Ada", "Grace", "Edsger"].enumerated() {
            let person = try doc.insertObject(obj: people, index: UInt64(index), ty: .Map)
            try doc.put(obj: person, key: "name", value: .String(name))
            let notes = try doc.putObject(obj: person, key: "notes", ty: .Text)
            try doc.spliceText(obj: notes, start: 0, delete: 0, value: "about \(name)")
            let tags = try doc.putObject(obj: person, key: "tags", ty: .List)
            try doc.insert(obj: tags, index: 0, value: .String("t\(index)"))
        }
        try b.valid("nested", "list-of-maps", "a list of maps holding text and lists", doc)

        doc = Fixed.doc()
        for i in 0..<300 { try doc.put(obj: .ROOT, key: String(format: "key-%03d", (i * 7) % 300), value: .Int(Int64(i))) }
        try b.valid("nested", "wide-map", "300 keys in one map (key string column deflated)", doc)

        doc = Fixed.doc()
        for key in ["", "é", "e\u{301}", "😀", "\u{FF61}", "Z", "a", "日本", "\u{0}", " "] {
            try doc.put(obj: .ROOT, key: key, value: .String(key))
        }
        try b.valid("nested", "unicode-keys", "keys sorted by UTF-8 bytes: empty, NUL, canonically equivalent, astral vs. U+FF61", doc)

        doc = Fixed.doc()
        let gone = try doc.putObject(obj: .ROOT, key: "gone", ty: .Map)
        try doc.put(obj: gone, key: "x", value: .Int(1))
        Fixed.commit(doc, 1)
        try doc.delete(obj: .ROOT, key: "gone")
        _ = try doc.putObject(obj: .ROOT, key: "replaced", ty: .List)
        Fixed.commit(doc, 2)
        _ = try doc.putObject(obj: .ROOT, key: "replaced", ty: .Map)
        try b.valid("nested", "deleted-and-replaced-objects", "a deleted object and an object replaced by another", doc)

        doc = Fixed.doc("aa")
        let shared = try doc.putObject(obj: .ROOT, key: "shared", ty: .Map)
        let peer = Fixed.fork(doc, "bb")
        let a = try doc.putObject(obj: shared, key: "a", ty: .List)
        try doc.insert(obj: a, index: 0, value: .Int(1))
        let bText = try peer.putObject(obj: shared, key: "b", ty: .Text)
        try peer.spliceText(obj: bText, start: 0, delete: 0, value: "peer")
        try doc.merge(other: peer)
        try b.valid("nested", "concurrent-children", "two peers adding different children to one map", doc)
    }

    // MARK: Actors

    static func actors(_ b: inout VectorBuilder) throws {
        let doc = Fixed.doc("0000")
        try doc.put(obj: .ROOT, key: "start", value: .Int(0))
        var peers: [Document] = []
        for i in 1...220 {
            let peer = Fixed.fork(doc, String(format: "%04x", (i * 7919) % 65536))
            try peer.put(obj: .ROOT, key: "p\(i % 50)", value: .Int(Int64(i)))
            peers.append(peer)
        }
        for peer in peers { try doc.merge(other: peer) }
        try b.valid("actors", "220-actors", "221 actors with concurrent changes (actor table order, actor index columns)", doc)

        for (name, hex) in [("one-byte", "01"), ("sixteen-bytes", String(repeating: "5a", count: 16)),
                            ("thirty-two-bytes", String(repeating: "c3", count: 32)), ("max-length", String(repeating: "ff", count: 128))] {
            let doc = Fixed.doc(hex)
            try doc.put(obj: .ROOT, key: "k", value: .String(name))
            try b.valid("actors", "actor-\(name)", "an actor id of \(hex.count / 2) bytes", doc)
        }

        let x = Fixed.doc("aabb")
        try x.put(obj: .ROOT, key: "k", value: .Int(1))
        let y = Fixed.fork(x, "aa")
        let z = Fixed.fork(x, "ab")
        try y.put(obj: .ROOT, key: "k", value: .Int(2))
        try z.put(obj: .ROOT, key: "k", value: .Int(3))
        try x.put(obj: .ROOT, key: "k", value: .Int(4))
        try Fixed.mergeAll([x, y, z])
        try b.valid("actors", "prefix-ordering", "actors aa, aabb, ab: a prefix sorts first; ties broken by actor bytes", x)
    }

    // MARK: History

    static func history(_ b: inout VectorBuilder) throws {
        var doc = Fixed.doc()
        for i in 0..<1000 {
            try doc.put(obj: .ROOT, key: "k\(i % 10)", value: .Int(Int64(i)))
            Fixed.commit(doc, i)
        }
        try b.valid("history", "long-1000-changes", "1000 changes by one actor", doc)

        let docs = (0..<3).map { Fixed.doc(String(format: "e%x", $0)) }
        for round in 0..<100 {
            for (index, peer) in docs.enumerated() {
                try peer.put(obj: .ROOT, key: "p\(index)", value: .Int(Int64(round)))
                Fixed.commit(peer, round)
            }
            if round % 10 == 9 { try Fixed.mergeAll(docs) }
        }
        try b.valid("history", "interleaved-3-actors", "three actors, 300 changes, periodic merges (dependency columns)", docs[0])

        doc = Fixed.doc()
        for (i, message) in ["first", "", "ünïcödé 🎉", String(repeating: "long message ", count: 30)].enumerated() {
            try doc.put(obj: .ROOT, key: "m", value: .Int(Int64(i)))
            doc.commitReproducibly(message: message)
        }
        try b.valid("history", "messages", "change messages: none, empty, Unicode, long", doc)

        doc = Fixed.doc()
        for (i, seconds) in [0.0, 1_700_000_000, 1_700_000_000.999, -1, 4_000_000_000, 1].enumerated() {
            try doc.put(obj: .ROOT, key: "t", value: .Int(Int64(i)))
            doc.commitWith(message: nil, timestamp: Date(timeIntervalSince1970: seconds))
        }
        try b.valid("history", "times", "change times up and down (negative deltas in the time column)", doc)

        let base = Fixed.doc("f0")
        try base.put(obj: .ROOT, key: "base", value: .Int(0))
        let branches = (1...12).map { Fixed.fork(base, String(format: "f%x", $0)) }
        for (index, branch) in branches.enumerated() { try branch.put(obj: .ROOT, key: "b\(index)", value: .Int(Int64(index))) }
        for branch in branches { try base.merge(other: branch) }
        try base.put(obj: .ROOT, key: "merged", value: .Boolean(true))
        try b.valid("history", "twelve-way-merge", "a change with 12 dependencies", base)

        let top = Fixed.doc("aa")
        try top.put(obj: .ROOT, key: "x", value: .Int(0))
        let left = Fixed.fork(top, "bb"), right = Fixed.fork(top, "cc")
        try left.put(obj: .ROOT, key: "l", value: .Int(1))
        try right.put(obj: .ROOT, key: "r", value: .Int(2))
        try left.merge(other: right)
        try right.merge(other: left)
        try left.put(obj: .ROOT, key: "l2", value: .Int(3))
        try right.put(obj: .ROOT, key: "r2", value: .Int(4))
        try top.merge(other: left)
        try top.merge(other: right)
        try b.valid("history", "diamonds", "a history that forks and joins twice; two heads", top)
    }

    // MARK: Chunks

    static func chunks(_ b: inout VectorBuilder) throws {
        let doc = Fixed.doc()
        let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        for i in 0..<5 {
            try doc.insert(obj: list, index: UInt64(i), value: .String(String(repeating: "x", count: i * 100)))
            Fixed.commit(doc, i)
        }
        let raw = Storage.uncompressedChanges(doc)
        let stored = doc.getHistory().map { [UInt8](doc.change(hash: $0)!.bytes) }
        try b.valid("chunks", "changes-only", "a file of change chunks only (no document chunk)", Data(raw.joined()))
        try b.valid("chunks", "compressed-change-chunks", "change chunks as Change.bytes gives them: type 2 (deflated) above 256 bytes",
                    Data(stored.joined()))
        try b.valid("chunks", "changes-reversed", "change chunks in reverse order: each waits for its dependencies",
                    Data(raw.reversed().joined()))
        try b.valid("chunks", "duplicate-changes", "every change chunk twice", Data((raw + raw).joined()))

        let early = try Document(Data(raw.prefix(2).joined()))
        try b.valid("chunks", "document-then-changes", "a document chunk followed by the later changes as chunks",
                    Data(early.save() + Data(raw.dropFirst(2).joined())))
        try b.valid("chunks", "document-then-document", "two document chunks: the second applies as changes",
                    Data(early.save() + doc.save()))
        try b.valid("chunks", "orphan-changes", "a document then changes whose dependencies are missing: queued, not applied, kept by save",
                    Data(early.save() + Data(raw.suffix(2).joined())))

        let empty = Storage.emptyChange(actor: [0xAA], sequence: 1, startOp: 1, time: 1_700_000_000_000, message: "nothing")
        try b.valid("chunks", "empty-change", "a change with no ops (column metadata 00)", Data(empty))
        let extra = try Storage.withExtraBytes(raw[0], [0xDE, 0xAD, 0xBE, 0xEF])
        try b.valid("chunks", "change-extra-bytes", "a change with extra bytes after its columns, kept and hashed", Data(extra))
        try b.valid("chunks", "uncompressed-document", "a document saved without column compression", doc, compress: false)
        try b.valid("chunks", "compressed-document", "the same document with deflated columns", doc, compress: true)
    }

    // MARK: Encoding edges

    static func encoding(_ b: inout VectorBuilder) throws {
        var doc = Fixed.doc()
        for i in 0..<40 { try doc.put(obj: .ROOT, key: "k\(i)", value: .Int(7)) }
        try b.valid("encoding", "repeat-runs", "one value repeated: repeat runs in value and action columns", doc)

        doc = Fixed.doc()
        for i in 0..<40 {
            let values: [ScalarValue] = [.Int(Int64(i * 3 - 50)), .String(String(repeating: "s", count: i % 7)), .Uint(UInt64(i)),
                                         .F64(Double(i) / 3), .Boolean(i % 2 == 0), .Bytes(Data([UInt8(i)]))]
            try doc.put(obj: .ROOT, key: "k\(i)", value: values[i % values.count])
        }
        try b.valid("encoding", "literal-runs", "neighbouring values that all differ: literal runs in the key, value metadata and id columns", doc)

        doc = Fixed.doc()
        let m = try doc.putObject(obj: .ROOT, key: "m", ty: .Map)
        let l = try doc.putObject(obj: .ROOT, key: "l", ty: .List)
        for i in 0..<5 {
            try doc.put(obj: m, key: "k\(i)", value: .Null)
            try doc.insert(obj: l, index: 0, value: .Null)
            try doc.put(obj: .ROOT, key: "r\(i)", value: .Int(1))
        }
        try b.valid("encoding", "null-runs", "null runs in the object, key and value columns", doc)

        doc = Fixed.doc()
        let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        try doc.insert(obj: list, index: 0, value: .Int(1))
        Fixed.commit(doc, 1)
        try doc.insert(obj: list, index: 0, value: .Int(2))
        try doc.insert(obj: list, index: 0, value: .Int(3))
        Fixed.commit(doc, 2)
        try b.valid("encoding", "insert-column-starts-true",
                    "a change whose first op is an insert: the boolean column starts with a zero count",
                    Data(Storage.uncompressedChanges(doc).joined()))

        doc = Fixed.doc()
        let t = try doc.putObject(obj: .ROOT, key: "t", ty: .Text)
        try doc.spliceText(obj: t, start: 0, delete: 0, value: String(repeating: "deflate me ", count: 40))
        try doc.put(obj: .ROOT, key: "small", value: .Int(1))
        try b.valid("encoding", "deflated-and-plain-columns", "a save where long columns are deflated and short ones are not", doc)
        try b.valid("encoding", "plain-columns", "the same document without compression", doc, compress: false)

        doc = Fixed.doc()
        let l2 = try doc.putObject(obj: .ROOT, key: "l", ty: .List)
        var rng = SeededGenerator(seed: 11)
        for _ in 0..<80 {
            let length = doc.length(obj: l2)
            try doc.insert(obj: l2, index: UInt64.random(in: 0...length, using: &rng), value: .Int(Int64.random(in: -3...3, using: &rng)))
        }
        try b.valid("encoding", "random-positions", "inserts at seeded random positions: mixed positive and negative key deltas", doc, compress: false)

        doc = Fixed.doc()
        try doc.put(obj: .ROOT, key: "big", value: .Uint(UInt64.max))
        try doc.put(obj: .ROOT, key: "neg", value: .Int(Int64.min))
        try doc.put(obj: .ROOT, key: "counter", value: .Counter(Int64.min))
        try doc.increment(obj: .ROOT, key: "counter", by: Int64.max)
        try b.valid("encoding", "ten-byte-leb", "10-byte LEB128 values in the raw value column", doc)
    }
}
