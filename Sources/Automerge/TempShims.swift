enum LEB128 { static func appendUnsigned(_ v: UInt64, to out: inout [UInt8]) { var v = v; repeat { var b = UInt8(v & 0x7f); v >>= 7; if v != 0 { b |= 0x80 }; out.append(b) } while v != 0 } }
public enum LoadError: Error, Equatable, Sendable { case x }
import Crypto
extension ChangeCodec { static func encode(_ c: StoredChange) -> (bytes: [UInt8], hash: ChangeHash) { ([], ChangeHash(bytes: Array(SHA256.hash(data: Array(String(describing: c).utf8))))) }
  static func publicBytes(_ b: [UInt8], hash: ChangeHash) -> [UInt8] { b } }
enum StorageBridge {
  static func changes(in bytes: [UInt8]) throws(AutomergeError) -> [DecodedChange] { [] }
  static func save(_ s: DocumentState, compress: Bool) -> [UInt8] { [] }
  static func load(_ bytes: [UInt8], actor: ActorId, encoding: TextEncoding) throws(AutomergeError) -> DocumentState { DocumentState(actor: actor, encoding: encoding) }
}
