import Testing

@testable import TodoServer

@Suite("PageLinks")
struct PageLinksTests {
    @Test("a middle page links first, prev, next and last, keeping the other parameters")
    func middle() {
        let links = PageLinks(
            baseURL: "http://h", path: "/todos", query: QueryParameters("q=milk"), offset: 10, limit: 10, total: 35)
        #expect(links.first == "http://h/todos?q=milk&offset=0&limit=10")
        #expect(links.previous == "http://h/todos?q=milk&offset=0&limit=10")
        #expect(links.next == "http://h/todos?q=milk&offset=20&limit=10")
        #expect(links.last == "http://h/todos?q=milk&offset=30&limit=10")
    }

    @Test("an offset near Int.max has no next page and does not overflow")
    func hugeOffset() {
        let links = PageLinks(
            baseURL: "http://h", path: "/todos", query: QueryParameters(), offset: Int.max - 1, limit: 500, total: 3)
        #expect(links.next == nil)
        #expect(links.previous == "http://h/todos?offset=\(Int.max - 501)&limit=500")
        #expect(links.last == "http://h/todos?offset=0&limit=500")
    }
}
