/// How a bound type is written and read by coders other than Automerge's
/// (JSON, property lists): as its plain value under the key `value`, and
/// read back from that key or, failing that, from a single plain value.
///
/// ``AutomergeText`` and ``Counter`` both do this, each with its own
/// coding keys.
enum PlainBoundValueCoding {
    /// Writes `value` under `key`.
    static func encode<Plain: Encodable, Key: CodingKey>(_ value: Plain, under key: Key, to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(value, forKey: key)
    }

    /// Reads a `Plain` from under `key`, or else as the decoder's single value.
    static func decode<Plain: Decodable, Key: CodingKey>(_ type: Plain.Type, under key: Key, from decoder: any Decoder) throws -> Plain {
        if let container = try? decoder.container(keyedBy: Key.self),
           let value = try? container.decode(Plain.self, forKey: key) {
            return value
        }
        return try decoder.singleValueContainer().decode(Plain.self)
    }
}
