import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

@Suite("List ETag")
struct TodoListEntityTagTests {
    private func item(_ id: String, _ revision: UInt64) -> Todo { makeTodo(id, revision: revision) }

    private func tag(_ items: [Todo], total: Int, offset: Int = 0, limit: Int = 500) -> String {
        TodoListData(items: items, total: total, offset: offset, limit: limit).entityTag.description
    }

    @Test("FNV-1a 64 gives the published test vectors")
    func vectors() {
        func hash(_ text: String) -> UInt64 {
            var fnv = FNV1a64()
            var text = text
            text.withUTF8 { fnv.add($0) }
            return fnv.value
        }
        #expect(hash("") == 0xcbf2_9ce4_8422_2325)
        #expect(hash("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(hash("foobar") == 0x8594_4171_f739_67e8)
        // Longer than a word: two 8-byte rounds and a tail byte (Noll's test_fnv.c vector).
        #expect(hash("chongo was here!\n") == 0x4681_0940_eff5_f915)
        // Values computed outside Swift (Python, one byte at a time).
        #expect(hash("12345678") == 0x1739_32c4_1a90_a42d)
        #expect(hash("123456789") == 0x06d5_5739_23c6_cdfc)
        #expect(hash("3c6a5e0e-9a1f-4c1e-8b53-2f6d0c1e7a90") == 0x6d99_2d32_c993_a6a5)
        var zero = FNV1a64()
        zero.add(UInt64(0))
        #expect(zero.hex.count == 16)
    }

    @Test("eight bytes at a time gives FNV-1a's byte-by-byte result for every length and alignment")
    func wordsMatchBytes() {
        var generator = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 0...UInt64.max, using: &generator)
        print("FNV1a64 words-vs-bytes seed: \(seed)")
        var state = seed
        let bytes: [UInt8] = (0..<96).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        bytes.withUnsafeBufferPointer { all in
            for start in 0..<8 {
                for length in 0...(all.count - start) {
                    let slice = UnsafeBufferPointer(rebasing: all[start..<(start + length)])
                    var reference: UInt64 = 0xcbf2_9ce4_8422_2325
                    for byte in slice { reference = (reference ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
                    var fnv = FNV1a64()
                    fnv.add(slice)
                    #expect(fnv.value == reference, "seed \(seed), start \(start), length \(length)")
                }
            }
        }
        // An integer is its eight little-endian bytes.
        var integer = FNV1a64()
        integer.add(UInt64(0x0102_0304_0506_0708))
        var spelled = FNV1a64()
        for byte: UInt8 in [8, 7, 6, 5, 4, 3, 2, 1] { spelled.add(byte) }
        #expect(integer.value == spelled.value)
        #expect(integer.hex.count == 16 && integer.hex == String(integer.value, radix: 16).leftPadded(to: 16))
    }

    @Test("the tag is a fixed function of the page: the same on every instance and run (values computed outside Swift)")
    func stable() {
        #expect(tag([item("abc", 17), item("def", 0)], total: 2) == #""list-83dac5d3f993dc26""#)
        #expect(tag([item("abc", 17)], total: 1) == #""list-a321638e4ffa4311""#)
        #expect(tag([], total: 0) == #""list-0f99f9da8f890dd6""#)
        #expect(
            tag(
                [item("3c6a5e0e-9a1f-4c1e-8b53-2f6d0c1e7a90", 1), item("a0b1c2d3-e4f5-4a6b-9c8d-0e1f2a3b4c5d", 42)],
                total: 2, limit: 20) == #""list-9bfbcd761167287f""#)
        #expect(TodoListData(items: [item("abc", 17)], total: 1, offset: 0, limit: 500).entityTag.isWeak == false)
    }

    @Test("changes when one item's revision, an id, the order, the total, the offset or the limit changes")
    func sensitivity() {
        let page = [item("a", 1), item("b", 1), item("c", 3)]
        let base = tag(page, total: 10, offset: 3, limit: 3)
        #expect(tag(page, total: 10, offset: 3, limit: 3) == base, "the same page, the same tag")
        let variants = [
            tag([item("a", 1), item("b", 2), item("c", 3)], total: 10, offset: 3, limit: 3),
            tag([item("a", 1), item("x", 1), item("c", 3)], total: 10, offset: 3, limit: 3),
            tag([item("b", 1), item("a", 1), item("c", 3)], total: 10, offset: 3, limit: 3),
            tag(page, total: 11, offset: 3, limit: 3),
            tag(page, total: 10, offset: 4, limit: 3),
            tag(page, total: 10, offset: 3, limit: 4),
            tag(Array(page.prefix(2)), total: 10, offset: 3, limit: 3),
            // Lengths are hashed too: "ab"+"c" is not "a"+"bc".
            tag([item("ab", 1), item("c", 1)], total: 2),
        ]
        for variant in variants { #expect(variant != base) }
        #expect(tag([item("a", 1), item("bc", 1)], total: 2) != tag([item("ab", 1), item("c", 1)], total: 2))
        #expect(Set(variants).count == variants.count)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: Swift.max(0, width - count)) + self }
}
