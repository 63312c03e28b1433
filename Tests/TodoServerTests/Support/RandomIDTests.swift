import Foundation
import Testing

@testable import TodoServer

@Suite("ChaCha20 generator, to-do ids and request ids")
struct RandomIDTests {
    @Test("the keystream is RFC 8439's ChaCha20 block function (test vector of section 2.3.2)")
    func chaCha20Vector() {
        // Key 00 01 … 1f, nonce 00 00 00 09 00 00 00 4a 00 00 00 00, block counter 1: as this
        // generator lays out its state, counter words (1, 0x09000000) and nonce words (0x4a000000, 0).
        var generator = ChaCha20Generator(
            seed: [0x0706_0504_0302_0100, 0x0F0E_0D0C_0B0A_0908, 0x1716_1514_1312_1110, 0x1F1E_1D1C_1B1A_1918, 0x4A00_0000],
            counter: 0x0900_0000_0000_0001)
        var bytes: [UInt8] = []
        for _ in 0..<8 { withUnsafeBytes(of: generator.next().littleEndian) { bytes += $0 } }
        let expected = """
            10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e\
            d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e
            """
        #expect(bytes.map { String(format: "%02x", $0) }.joined() == expected)
        // The next word comes from the next block (counter + 1), not a repeat of this one.
        #expect(generator.next() != UInt64(littleEndian: bytes.withUnsafeBytes { $0.load(as: UInt64.self) }))
    }

    @Test("two generators keyed from the system give different streams")
    func systemKeys() {
        var first = ChaCha20Generator(), second = ChaCha20Generator()
        let a = (0..<4).map { _ in first.next() }, b = (0..<4).map { _ in second.next() }
        #expect(a != b)
        #expect(Set(a).count == 4)
    }

    @Test("1,000,000 to-do ids: all different, lower-case RFC 9562 version 4 UUIDs")
    func uuids() {
        let generator = UUIDGenerator()
        var seen = Set<String>(minimumCapacity: 1_000_000)
        var versionAndVariant = true, shape = true
        var variants = Set<Character>()
        for index in 0..<1_000_000 {
            let id = generator.makeID()
            seen.insert(id)
            let utf8 = Array(id.utf8)
            if index < 1000 {
                shape =
                    shape && utf8.count == 36 && UUID(uuidString: id)?.uuidString.lowercased() == id
                    && [8, 13, 18, 23].allSatisfy { utf8[$0] == UInt8(ascii: "-") }
                    && utf8.enumerated().allSatisfy {
                        [8, 13, 18, 23].contains($0.offset) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0.element)
                            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0.element)
                    }
            }
            versionAndVariant = versionAndVariant && utf8[14] == UInt8(ascii: "4") && "89ab".utf8.contains(utf8[19])
            if index < 1000 { variants.insert(Character(UnicodeScalar(utf8[19]))) }
        }
        #expect(seen.count == 1_000_000)
        #expect(shape)
        #expect(versionAndVariant)
        #expect(variants == ["8", "9", "a", "b"])
    }

    @Test("1,000,000 request ids: all different, 16 lower-case hex digits, every digit used in every place")
    func requestIDs() {
        let identity = RequestIdentity(publicURL: nil)
        var seen = Set<String>(minimumCapacity: 1_000_000)
        var shape = true
        var digitsAt = Array(repeating: Set<UInt8>(), count: 16)
        for index in 0..<1_000_000 {
            let id = identity.newRequestID()
            seen.insert(id)
            if index < 2000 {
                let utf8 = Array(id.utf8)
                shape =
                    shape && utf8.count == 16
                    && utf8.allSatisfy {
                        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
                    }
                for (place, digit) in utf8.enumerated() where place < 16 { digitsAt[place].insert(digit) }
            }
        }
        #expect(seen.count == 1_000_000)
        #expect(shape)
        #expect(digitsAt.allSatisfy { $0.count == 16 })
    }
}
