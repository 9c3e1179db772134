/// An encoding container that writes Swift's primitive values as Automerge
/// scalars.
///
/// The single-value and unkeyed containers turn each primitive into the
/// same scalar (signed integers into `.Int`, unsigned into `.Uint`, floats
/// into `.F64`); this protocol holds that mapping once, so each container
/// says only where a scalar goes.
protocol ScalarStoringContainer {
    /// Writes `scalar` where the container's next value goes.
    func store(_ scalar: ScalarValue)
}

extension ScalarStoringContainer {
    mutating func encodeNil() throws { store(.Null) }
    mutating func encode(_ value: Bool) throws { store(.Boolean(value)) }
    mutating func encode(_ value: String) throws { store(.String(value)) }
    mutating func encode(_ value: Double) throws { store(.F64(value)) }
    mutating func encode(_ value: Float) throws { store(.F64(Double(value))) }
    mutating func encode(_ value: Int) throws { store(.Int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { store(.Int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { store(.Int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { store(.Int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { store(.Int(value)) }
    mutating func encode(_ value: UInt) throws { store(.Uint(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { store(.Uint(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { store(.Uint(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { store(.Uint(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { store(.Uint(value)) }
}
