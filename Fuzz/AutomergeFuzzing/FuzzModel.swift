import Automerge
import Foundation

/// The rich Codable model the `decode` target reads documents into: nested
/// structs, arrays, optionals, dictionaries, enums (raw and with associated
/// values), Date, Data, URL, AutomergeText and Counter. No `Set`: it encodes
/// as a list in its iteration order, which differs between equal sets, so
/// the round-trip checks could not compare its documents.
public struct FuzzModel: Codable {
    public enum Status: String, Codable, CaseIterable, Sendable { case draft, published, archived }

    public enum Shape: Codable {
        case circle(radius: Double)
        case rectangle(width: Double, height: Double)
        case point
        case labelled(String, Int)
        case nested(Inner, tags: [String])
    }

    public struct Inner: Codable {
        public var name: String
        public var score: Int64?
        public var children: [Inner]?
        public var attributes: [String: String]
    }

    public var title: String
    public var count: Int
    public var small: UInt8
    public var signed: Int16?
    public var ratio: Double
    public var float: Float?
    public var flag: Bool
    public var created: Date
    public var blob: Data
    public var link: URL
    public var notes: AutomergeText
    public var views: Counter
    public var tags: [String]
    public var scores: [Int?]
    public var matrix: [[Int8]]
    public var inner: Inner
    public var items: [Inner]
    public var optionalInner: Inner?
    public var status: Status
    public var shape: Shape
    public var shapes: [Shape]
    public var lookup: [String: Double]
    public var byNumber: [Int: String]?
    public var texts: [AutomergeText]?
    public var counters: [String: Counter]?
    public var stamps: [Date]?
    public var links: [URL]?
}

/// The same fields, every one optional: gets further into documents that
/// only partly fit.
public struct LenientFuzzModel: Codable {
    public var title: String?
    public var count: Int?
    public var small: UInt8?
    public var signed: Int16?
    public var ratio: Double?
    public var float: Float?
    public var flag: Bool?
    public var created: Date?
    public var blob: Data?
    public var link: URL?
    public var notes: AutomergeText?
    public var views: Counter?
    public var tags: [String?]?
    public var scores: [Int?]?
    public var matrix: [[Int8]]?
    public var inner: FuzzModel.Inner?
    public var items: [FuzzModel.Inner]?
    public var optionalInner: FuzzModel.Inner?
    public var status: FuzzModel.Status?
    public var shape: FuzzModel.Shape?
    public var shapes: [FuzzModel.Shape]?
    public var lookup: [String: Double]?
    public var byNumber: [Int: String]?
    public var texts: [AutomergeText]?
    public var counters: [String: Counter]?
    public var stamps: [Date]?
    public var links: [URL]?
}

extension FuzzModel {
    /// A model with every field filled, for seeds and tests.
    public static func sample(variant: Int = 0) -> FuzzModel {
        let leaf = Inner(name: "leaf", score: Int64(variant), children: nil, attributes: ["k": "v"])
        let inner = Inner(name: "inner é", score: nil, children: [leaf, Inner(name: "", score: -1, children: [], attributes: [:])],
                          attributes: ["colour": "blue", "日本": "🇯🇵"])
        return FuzzModel(
            title: variant == 0 ? "Title" : "Title \(variant) 👍🏽",
            count: 42 + variant, small: 255, signed: variant % 2 == 0 ? -300 : nil,
            ratio: 0.5, float: 1.25, flag: variant % 2 == 0,
            created: Date(timeIntervalSince1970: 1_700_000_000.123),
            blob: Data([0, 1, 2, 0xff]), link: URL(string: "https://example.com/a?b=c#d")!,
            notes: AutomergeText("Some notes\nwith lines"), views: Counter(3),
            tags: ["a", "b", "e\u{301}"], scores: [1, nil, 3], matrix: [[1, 2], [], [-128, 127]],
            inner: inner, items: [leaf, inner], optionalInner: variant % 2 == 0 ? nil : leaf,
            status: Status.allCases[variant % 3],
            shape: [.circle(radius: 1.5), .rectangle(width: 2, height: 3), .point, .labelled("x", 7), .nested(leaf, tags: ["t"])][variant % 5],
            shapes: [.point, .labelled("l", -1), .circle(radius: 0)],
            lookup: ["pi": 3.14159, "e": 2.71828], byNumber: [1: "one", -20: "minus twenty"],
            texts: [AutomergeText("first"), AutomergeText("")], counters: ["likes": Counter(10)],
            stamps: [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -86_400)],
            links: [URL(string: "mailto:someone@example.com")!, URL(string: "relative/path")!])
    }
}
