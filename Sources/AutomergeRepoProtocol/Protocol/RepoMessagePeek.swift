extension RepoMessage {
    /// Whether `prefix`, the first bytes of a message, show it to be an
    /// `ephemeral` message, read without decoding the rest: the entries
    /// before `type` are stepped over by their declared lengths.
    ///
    /// A server uses it to drop an ephemeral message too large to relay
    /// before it is whole and decoded. False when the bytes given do not
    /// say (the `type` entry lies past them, or an entry before it has an
    /// indefinite length) or the message is of another type; the message
    /// is then read as any other, with ``init(decoding:maximumSize:)``,
    /// which alone says whether it is well formed.
    public static func isEphemeral(prefix: UnsafeRawBufferPointer) -> Bool {
        CBORMapPeek.text(for: Array("type".utf8), in: prefix) == MessageType.ephemeral
    }
}
