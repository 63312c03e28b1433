import Testing

@testable import TodoData
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

    @Test("a percent-encoded value (as swift-openapi-generator's runtime sends header values) is read decoded")
    func percentEncoded() {
        #expect(EntityTagCondition("%221%22") == .tags([EntityTag("1")]))
        #expect(EntityTagCondition("%2A") == .any)
        #expect(EntityTagCondition("W%2F%227%22") == .tags([EntityTag("7", isWeak: true)]))
        #expect(EntityTagCondition("%221%22%2C%20W%2F%222%22") == .tags([EntityTag("1"), EntityTag("2", isWeak: true)]))
        #expect(EntityTagCondition("%22list-3f%22") == .tags([EntityTag("list-3f")]))
        #expect(EntityTagCondition("%221%22").matchesStrongly(EntityTag(revision: 1)))
        #expect(!EntityTagCondition("%221%22").matchesStrongly(EntityTag(revision: 2)))
        #expect(EntityTagCondition("W%2F%221%22").matchesWeakly(EntityTag(revision: 1)))
    }

    @Test("a value with a quote is read as it is, % and all; a malformed escape leaves the value undecoded")
    func percentLiteral() {
        #expect(EntityTagCondition(#""a%22b""#) == .tags([EntityTag("a%22b")]))
        #expect(EntityTagCondition(#""x%22%2C%221""#) == .tags([EntityTag("x%22%2C%221")]))
        #expect(EntityTagCondition("%2") == .tags([]))
        #expect(EntityTagCondition("%zz%221%22") == .tags([]))
        #expect(EntityTagCondition("%22%FF%22") == .tags([]))
        #expect(EntityTagCondition.percentDecodedIfEncoded("%zz") == "%zz")
        #expect(EntityTagCondition.percentDecodedIfEncoded("%E2%9C%93") == "\u{2713}")
        #expect(EntityTagCondition.percentDecodedIfEncoded("plain") == "plain")
    }
}
