import Testing

@testable import TodoServer

@Suite("QueryParameters: decoding, lookup, setting and encoding")
struct QueryParametersTests {
    private func pairs(_ query: String?) -> [String] {
        QueryParameters(query).pairs.map { "\($0.name)=\($0.value)" }
    }

    @Test("pairs are split on & and the first =, in order; empty items are skipped")
    func splitting() {
        #expect(pairs(nil) == [])
        #expect(pairs("") == [])
        #expect(pairs("a=1&&b=2=3&c&=4&a=5") == ["a=1", "b=2=3", "c=", "=4", "a=5"])
    }

    @Test("+ is a space, %XX is decoded in names and values; malformed escapes are kept; bad UTF-8 is repaired")
    func decoding() {
        #expect(pairs("q=a+b%20c%2B%26&n%61me=%C3%A9") == ["q=a b c+&", "name=é"])
        #expect(pairs("q=100%&r=%zz&s=%4") == ["q=100%", "r=%zz", "s=%4"])
        #expect(pairs("q=%ff") == ["q=\u{FFFD}"])
        #expect(pairs("q=%aF%Af") == ["q=\u{FFFD}\u{FFFD}"])
    }

    @Test("the subscript answers the first value, values(for:) all of them")
    func lookup() {
        let query = QueryParameters("a=1&b=2&a=3")
        #expect(query["a"] == "1")
        #expect(query["b"] == "2")
        #expect(query["c"] == nil)
        #expect(query.values(for: "a") == ["1", "3"])
        #expect(query.values(for: "c") == [])
    }

    @Test("setting replaces the first pair of a name in place, drops its repeats, and appends new names")
    func setting() {
        let updated = QueryParameters("a=1&b=2&a=3&c=4").setting(["a": "9", "d": "x y"])
        #expect(updated.pairs.map { "\($0.name)=\($0.value)" } == ["a=9", "b=2", "c=4", "d=x y"])
        #expect(updated != QueryParameters("a=9&b=2&c=4"))
        #expect(updated == QueryParameters("a=9&b=2&c=4&d=x%20y"))
    }

    @Test("encoding keeps the unreserved characters and writes every other byte as upper-case %XX")
    func encoding() {
        let query = QueryParameters().setting(["q": "a b&c=d/é~._-", "Z9": "%+"])
        #expect(query.encoded == "q=a%20b%26c%3Dd%2F%C3%A9~._-&Z9=%25%2B")
        #expect(QueryParameters(query.encoded) == query)
    }
}
