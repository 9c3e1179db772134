/// Conversions between `Double` and CBOR's IEEE 754 half-precision floats,
/// done by hand so that no platform's `Float16` support is needed.
enum CBORFloat {
    /// The half-precision float with bit pattern `bits`, exactly.
    static func double(fromHalf bits: UInt16) -> Double {
        let exponent = Int((bits >> 10) & 0x1f)
        let mantissa = Double(bits & 0x3ff)
        let magnitude: Double
        switch exponent {
        case 0: magnitude = mantissa * 0x1p-24  // subnormal (or zero)
        case 31: magnitude = mantissa == 0 ? .infinity : .nan
        default: magnitude = (mantissa + 1024) * Double(sign: .plus, exponent: exponent - 25, significand: 1)
        }
        return bits & 0x8000 == 0 ? magnitude : -magnitude
    }

    /// The half-precision bit pattern holding `value` exactly; `nil` when
    /// none does. NaN gives the quiet NaN 0x7e00.
    static func halfBits(exactly value: Double) -> UInt16? {
        if value.isNaN { return 0x7e00 }
        let sign: UInt16 = value.sign == .minus ? 0x8000 : 0
        let magnitude = value.magnitude
        if magnitude == 0 { return sign }
        if magnitude == .infinity { return sign | 0x7c00 }
        if magnitude < 0x1p-14 {
            // Subnormal: a multiple of 2^-24 below 2^-14.
            let units = magnitude * 0x1p24
            guard units == units.rounded(.towardZero) else { return nil }
            return sign | UInt16(units)
        }
        let exponent = Int(magnitude.exponent)
        guard exponent <= 15 else { return nil }
        // magnitude = 2^exponent × (1 + fraction/1024) with fraction a whole number.
        let fraction = (magnitude.significand - 1) * 1024
        guard fraction == fraction.rounded(.towardZero) else { return nil }
        return sign | UInt16(exponent + 15) << 10 | UInt16(fraction)
    }

    /// The single-precision float holding `value` exactly; `nil` when none does (NaN included).
    static func single(exactly value: Double) -> Float? {
        let single = Float(value)
        return Double(single) == value ? single : nil
    }
}
