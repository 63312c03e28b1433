import Testing
@testable import TodoServer

@Suite("EntityTag and EntityTagCondition: parsing and RFC 9110 comparison")
struct EntityTagTests {
    @Test("tags are written quoted, weak ones with W/; a revision is its decimal number")
    func descriptions() {
        #expect(EntityTag("17").description == #""17""#)
        #expect(EntityTag("17", isWeak: true).description == #"W/"17""#)
        #expect(EntityTag(revision: 42).description == #""42""#)
    }

    @Test("`*` (with white space around it) is any")
    func any() {
        #expect(EntityTagCondition("*") == .any)
        #expect(EntityTagCondition(" \t* ") == .any)
    }

    @Test("a list keeps its tags in order, strong and weak, and skips entries that are not tags")
    func list() {
        #expect(EntityTagCondition(#""1", W/"2" ,"a-b""#) == .tags([EntityTag("1"), EntityTag("2", isWeak: true), EntityTag("a-b")]))
        #expect(EntityTagCondition(#"1, "2", "x"y", w/"3", W/4, """#) == .tags([EntityTag("2"), EntityTag("")]))
        #expect(EntityTagCondition("") == .tags([]))
        #expect(EntityTagCondition("**") == .tags([]))
    }

    @Test("If-Match compares strongly: weak tags on either side never match")
    func strong() {
        let condition = EntityTagCondition(#""1", W/"2""#)
        #expect(condition.matchesStrongly(EntityTag("1")))
        #expect(!condition.matchesStrongly(EntityTag("1", isWeak: true)))
        #expect(!condition.matchesStrongly(EntityTag("2")))
        #expect(!condition.matchesStrongly(EntityTag("3")))
        #expect(EntityTagCondition("*").matchesStrongly(EntityTag("anything")))
        #expect(!EntityTagCondition("").matchesStrongly(EntityTag("")))
    }

    @Test("If-None-Match compares weakly: only the opaque parts count")
    func weak() {
        let condition = EntityTagCondition(#""1", W/"2""#)
        #expect(condition.matchesWeakly(EntityTag("1")))
        #expect(condition.matchesWeakly(EntityTag("1", isWeak: true)))
        #expect(condition.matchesWeakly(EntityTag("2")))
        #expect(!condition.matchesWeakly(EntityTag("3")))
        #expect(!condition.matchesWeakly(EntityTag("12")))
        #expect(EntityTagCondition("*").matchesWeakly(EntityTag("x", isWeak: true)))
    }
}
