import Foundation

/// Makes new to-do ids; injected so that tests can predict them.
public protocol IDGenerator: Sendable {
    func makeID() -> String
}

/// Random (version 4) UUIDs in lower case: never reused in practice.
public struct UUIDGenerator: IDGenerator {
    public init() {}

    /// `8f0c2f1e-…` in lower case, written from the random bytes (`uuidString` then `lowercased()`
    /// cost two strings and ~8k instructions).
    public func makeID() -> String {
        let uuid = UUID().uuid
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { out in
                var position = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    out[position] = Self.hexDigit(byte >> 4)
                    out[position + 1] = Self.hexDigit(byte & 0xF)
                    position += 2
                }
                return position
            }
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
