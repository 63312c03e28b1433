import Testing
@testable import TodoServer

@Suite("List ETag")
struct TodoListEntityTagTests {
    private func item(_ id: String, _ revision: UInt64) -> TodoData { TodoData(makeTodo(id, revision: revision)) }

    private func tag(_ items: [TodoData], total: Int, offset: Int = 0, limit: Int = 500) -> String {
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
        var zero = FNV1a64()
        zero.add(UInt64(0))
        #expect(zero.hex.count == 16)
    }

    @Test("the tag is a fixed function of the page: the same on every instance and run (values computed outside Swift)")
    func stable() {
        #expect(tag([item("abc", 17), item("def", 0)], total: 2) == #""list-83dac5d3f993dc26""#)
        #expect(tag([item("abc", 17)], total: 1) == #""list-a321638e4ffa4311""#)
        #expect(tag([], total: 0) == #""list-0f99f9da8f890dd6""#)
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
