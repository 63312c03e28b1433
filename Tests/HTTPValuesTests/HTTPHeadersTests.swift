import HTTPValues
import Testing

@Suite("HTTPHeaders: ordered fields, case-insensitive names")
struct HTTPHeadersTests {
    @Test("lookup folds ASCII case only and answers the first value; values(for:) answers all in order")
    func lookup() {
        let headers: HTTPHeaders = ["Accept": "a", "X-Id": "1", "accept": "b"]
        #expect(headers["ACCEPT"] == "a")
        #expect(headers["x-id"] == "1")
        #expect(headers["Accept "] == nil)
        #expect(headers.values(for: "aCcEpT") == ["a", "b"])
        #expect(headers.values(for: "Missing") == [])
    }

    @Test("lookup among names of one length: the first of the right name, not the first of that length; byte length, not characters")
    func lookupAmongEqualLengths() {
        let headers: HTTPHeaders = [
            "X-Ab": "1", "X-Ac": "2", "x-ac": "3", "Host": "h", "Hőst": "accented", "Content-Type": "json", "Content-Typf": "no",
        ]
        #expect(headers["X-AC"] == "2")
        #expect(headers["x-ab"] == "1")
        #expect(headers["X-Ad"] == nil)
        #expect(headers["HOST"] == "h")
        // "Hőst" is 5 bytes: only an exact byte match finds it.
        #expect(headers["Hőst"] == "accented")
        #expect(headers["HŐST"] == nil)
        #expect(headers["content-typf"] == "no")
        #expect(headers["Content-Typ"] == nil)
        #expect(HTTPHeaders()["Host"] == nil)
    }

    @Test("names match by ASCII letters only: no folding of digits, punctuation or non-ASCII")
    func namesMatch() {
        #expect(HTTPHeaders.namesMatch("Content-Length", "content-LENGTH"))
        #expect(!HTTPHeaders.namesMatch("Content-Length", "Content_Length"))
        #expect(!HTTPHeaders.namesMatch("a", "ab"))
        // `@` (0x40) and `` ` `` (0x60) differ only in the 0x20 bit, as do `[` and `{`: not letters.
        #expect(!HTTPHeaders.namesMatch("@", "`"))
        #expect(!HTTPHeaders.namesMatch("[", "{"))
        #expect(!HTTPHeaders.namesMatch("É", "é"))
    }

    @Test("add keeps existing fields, set replaces every field of the name with one at the end, remove drops all")
    func editing() {
        var headers: HTTPHeaders = ["Vary": "Origin", "ETag": "\"1\"", "vary": "Accept"]
        headers.add("Vary", "X")
        #expect(headers.values(for: "Vary") == ["Origin", "Accept", "X"])
        headers.set("VARY", "Only")
        #expect(headers.fields.map { "\($0.name): \($0.value)" } == ["ETag: \"1\"", "VARY: Only"])
        headers.remove("etag")
        #expect(headers == ["VARY": "Only"])
        #expect(headers.map(\.name) == ["VARY"])
    }

    @Test("equality compares names exactly and order matters")
    func equality() {
        let ab: HTTPHeaders = ["A": "1", "B": "2"]
        #expect(ab == ["A": "1", "B": "2"])
        #expect(ab != ["B": "2", "A": "1"])
        #expect(ab != ["a": "1", "B": "2"])
        #expect(HTTPHeaders(capacity: 8) == HTTPHeaders())
    }
}

@Suite("HTTPMethod and HTTPStatus")
struct HTTPMethodAndStatusTests {
    @Test("methods are their request-line tokens; an unknown one is logged as UNKNOWN")
    func methods() {
        #expect(
            HTTPMethod.allCases.map(\.rawValue) == [
                "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT", "UNKNOWN",
            ])
        #expect(HTTPMethod(rawValue: "PATCH") == .patch)
        #expect(HTTPMethod(rawValue: "patch") == nil)
    }

    @Test(
        "reason phrases of RFC 9110, and an empty one for an unregistered code",
        arguments: [
            (200, "OK"), (201, "Created"), (204, "No Content"), (304, "Not Modified"), (400, "Bad Request"), (404, "Not Found"),
            (405, "Method Not Allowed"), (412, "Precondition Failed"), (413, "Content Too Large"), (414, "URI Too Long"),
            (415, "Unsupported Media Type"), (422, "Unprocessable Content"), (431, "Request Header Fields Too Large"),
            (500, "Internal Server Error"), (501, "Not Implemented"), (503, "Service Unavailable"),
            (505, "HTTP Version Not Supported"), (401, "Unauthorized"), (403, "Forbidden"), (408, "Request Timeout"),
            (409, "Conflict"), (417, "Expectation Failed"), (429, "Too Many Requests"), (418, ""), (599, ""),
        ])
    func reasonPhrases(status: Int, phrase: String) {
        #expect(HTTPStatus.reasonPhrase(status) == phrase)
    }
}
