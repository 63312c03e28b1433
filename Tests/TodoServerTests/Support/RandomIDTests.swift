import Foundation
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

@Suite("To-do ids and request ids from the kernel's generator")
struct RandomIDTests {
    @Test("the source's words land in the id as drawn, but the version and variant bits")
    func layout() {
        #expect(UUIDGenerator(random: FixedWords([0, 0])).makeID() == "00000000-0000-4000-8000-000000000000")
        #expect(UUIDGenerator(random: FixedWords([.max, .max])).makeID() == "ffffffff-ffff-4fff-bfff-ffffffffffff")
        let words = FixedWords([0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210])
        #expect(UUIDGenerator(random: words).makeID() == "01234567-89ab-4def-bedc-ba9876543210")
        let identity = RequestIdentity(publicURL: nil, random: FixedWords([0x0123_4567_89AB_CDEF, 0xA]))
        #expect(identity.newRequestID() == "0123456789abcdef")
        #expect(identity.newRequestID() == "000000000000000a")
    }

    @Test("a seeded source gives the same ids again: what a test injects to predict them")
    func seeded() {
        let seed = testSeed("RandomIDTests")
        let first = UUIDGenerator(random: SeededRandom(seed: seed)), second = UUIDGenerator(random: SeededRandom(seed: seed))
        let ids = (0..<100).map { _ in first.makeID() }
        #expect(ids == (0..<100).map { _ in second.makeID() })
        #expect(Set(ids).count == 100)
        let requests = RequestIdentity(publicURL: nil, random: SeededRandom(seed: seed))
        let again = RequestIdentity(publicURL: nil, random: SeededRandom(seed: seed))
        #expect((0..<100).map { _ in requests.newRequestID() } == (0..<100).map { _ in again.newRequestID() })
    }

    @Test("one kernel source drawn from by 8 tasks at once, by words and pairs: 80,000 words across many refills, none handed out twice")
    func concurrentDraws() async {
        let source = SystemRandom()
        let words = await withTaskGroup(of: [UInt64].self) { group in
            for _ in 0..<4 { group.addTask { (0..<10_000).map { _ in source.next64() } } }
            for _ in 0..<4 { group.addTask { (0..<5_000).flatMap { _ in [source.next128()].flatMap { [$0.0, $0.1] } } } }
            var all: [UInt64] = []
            for await part in group { all += part }
            return all
        }
        #expect(Set(words).count == 80_000)
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
