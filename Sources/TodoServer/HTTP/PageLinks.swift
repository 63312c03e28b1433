/// RFC 8288 `Link` relations of one page of a list: absolute `first`, `prev`, `next` and `last`
/// URLs that keep the request's other query parameters.
struct PageLinks: Sendable, Equatable {
    let first: String?
    let previous: String?
    let next: String?
    let last: String?

    /// nil relations are left out: no `prev` on the first page, no `next` on the last, and no
    /// links at all when everything fits on the first page.
    init(baseURL: String, path: String, query: QueryParameters, offset: Int, limit: Int, total: Int) {
        func url(_ offset: Int) -> String {
            "\(baseURL)\(path)?" + query.setting(["offset": String(offset), "limit": String(limit)]).encoded
        }
        let paged = offset > 0 || total > limit
        let lastOffset = total > 0 ? (total - 1) / limit * limit : 0
        first = paged ? url(0) : nil
        previous = offset > 0 ? url(max(0, offset - limit)) : nil
        // `offset < total - limit`, not `offset + limit < total`: an offset near Int.max must not overflow.
        next = offset < total - limit ? url(offset + limit) : nil
        last = paged ? url(lastOffset) : nil
    }

    /// The `Link` field value, or nil when there is no relation.
    var headerValue: String? {
        let relations = [("first", first), ("prev", previous), ("next", next), ("last", last)]
            .compactMap { name, url in url.map { "<\($0)>; rel=\"\(name)\"" } }
        return relations.isEmpty ? nil : relations.joined(separator: ", ")
    }
}
