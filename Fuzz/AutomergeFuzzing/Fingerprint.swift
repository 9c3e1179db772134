import Automerge
import AutomergeConformance
import Foundation

/// A byte-exact description of a document's visible content, read through
/// the public API: map keys and strings as UTF-8 bytes, floats as bit
/// patterns, object ids, conflicts, text with marks.
///
/// Compared as bytes, never as Swift `String`s or `JSONValue`s: those compare
/// by canonical equivalence, so "é" and "e\u{301}" (different keys and
/// different text to Automerge) would look equal.
enum Fingerprint {
    static func of(_ doc: Document) -> [UInt8] {
        var out: [UInt8] = []
        write(.ROOT, .Map, doc, &out, depth: 0)
        return out
    }

    private static func write(_ obj: ObjId, _ type: ObjType, _ doc: Document, _ out: inout [UInt8], depth: Int) {
        guard depth < 200 else { out += Array("<deep>".utf8); return }
        out += Array("\(obj)".utf8)
        switch type {
        case .Map:
            out.append(0x7B)
            for (key, value) in (try? doc.mapEntries(obj: obj)) ?? [] {
                string(key, &out)
                let all = (try? doc.getAll(obj: obj, key: key)) ?? []
                if all.count > 1 { out += Array("conflict\(all.count)".utf8) }
                self.value(value, doc, &out, depth: depth)
            }
            out.append(0x7D)
        case .List:
            out.append(0x5B)
            for value in (try? doc.values(obj: obj)) ?? [] { self.value(value, doc, &out, depth: depth) }
            out.append(0x5D)
        case .Text:
            string((try? doc.text(obj: obj)) ?? "<no text>", &out)
            for mark in (try? doc.marks(obj: obj)) ?? [] {
                out += Array("mark\(mark.start)-\(mark.end)".utf8)
                string(mark.name, &out)
                scalar(mark.value, &out)
            }
        }
    }

    private static func value(_ value: Value, _ doc: Document, _ out: inout [UInt8], depth: Int) {
        switch value {
        case .Object(let id, let type): write(id, type, doc, &out, depth: depth + 1)
        case .Scalar(let scalar): self.scalar(scalar, &out)
        }
    }

    private static func string(_ text: String, _ out: inout [UInt8]) {
        out += Array("s\(text.utf8.count):".utf8)
        out += Array(text.utf8)
    }

    private static func scalar(_ value: ScalarValue, _ out: inout [UInt8]) {
        switch value {
        case .String(let text): string(text, &out)
        case .F64(let double): out += Array("f\(double.bitPattern)".utf8)
        case .Bytes(let data): out += Array("b\(data.count):".utf8) + Array(data)
        case .Timestamp(let date): out += Array("t\(date.timeIntervalSince1970.bitPattern)".utf8)
        case .Unknown(let code, let data): out += Array("u\(code),\(data.count):".utf8) + Array(data)
        default: out += Array("\(value)".utf8)
        }
        out.append(0x2C)
    }
}

extension Check {
    /// Where two byte strings first differ, with some context from each.
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> String {
        let common = zip(a, b).prefix { $0 == $1 }.count
        let start = max(0, common - 120)
        func excerpt(_ bytes: [UInt8]) -> String {
            String(decoding: bytes[start..<min(bytes.count, common + 240)], as: UTF8.self).debugDescription
        }
        return "first difference at byte \(common) of \(a.count) / \(b.count):\n  \(excerpt(a))\n  \(excerpt(b))"
    }

    /// Same content: equal canonical dumps (compared as UTF-8 bytes) and equal fingerprints.
    static func sameContent(_ a: Document, _ b: Document, _ message: @autoclosure () -> String) throws(FuzzFailure) {
        let dumpA = CanonicalDump.dump(a).serialized, dumpB = CanonicalDump.dump(b).serialized
        if !dumpA.utf8.elementsEqual(dumpB.utf8) {
            throw FuzzFailure("\(message()): dumps differ, \(difference(Array(dumpA.utf8), Array(dumpB.utf8)))")
        }
        let (fingerprintA, fingerprintB) = (Fingerprint.of(a), Fingerprint.of(b))
        if fingerprintA != fingerprintB {
            throw FuzzFailure("\(message()): content differs, \(difference(fingerprintA, fingerprintB))")
        }
    }

    /// `sameContent` for the document parts (the `doc` member) of two dumps only, plus fingerprints.
    static func sameDocument(_ a: Document, _ b: Document, _ message: @autoclosure () -> String) throws(FuzzFailure) {
        let dumpA = (CanonicalDump.dump(a)["doc"] ?? .null).serialized, dumpB = (CanonicalDump.dump(b)["doc"] ?? .null).serialized
        if !dumpA.utf8.elementsEqual(dumpB.utf8) {
            throw FuzzFailure("\(message()): dumps differ, \(difference(Array(dumpA.utf8), Array(dumpB.utf8)))")
        }
        let (fingerprintA, fingerprintB) = (Fingerprint.of(a), Fingerprint.of(b))
        if fingerprintA != fingerprintB {
            throw FuzzFailure("\(message()): content differs, \(difference(fingerprintA, fingerprintB))")
        }
    }
}
