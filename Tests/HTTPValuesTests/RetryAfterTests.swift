import HTTPValues
import Testing

/// `Retry-After`'s one writer (`HTTPHeaders.setRetryAfter`): the store's 503s and the connection
/// limit's go through it (their answers: `TodosPresenterTests`, `UpcomingPresenterTests`,
/// `RequestScreeningTests`).
@Suite("Retry-After: delay-seconds, written in one place")
struct RetryAfterTests {
    @Test("whole seconds in decimal after the fields already there; nothing when the delay is unknown")
    func written() {
        var headers: HTTPHeaders = ["Connection": "close"]
        headers.setRetryAfter(seconds: nil)
        #expect(headers == ["Connection": "close"])
        headers.setRetryAfter(seconds: 1)
        #expect(headers == ["Connection": "close", "Retry-After": "1"])
        headers.setRetryAfter(seconds: 60)
        #expect(headers == ["Connection": "close", "Retry-After": "60"])
    }

    @Test("one field however it was spelled before: an earlier retry-after is replaced, not repeated")
    func replaces() {
        var headers: HTTPHeaders = ["retry-after": "9", "ETag": #""3""#]
        headers.setRetryAfter(seconds: 5)
        #expect(headers.values(for: "Retry-After") == ["5"])
        #expect(headers == ["ETag": #""3""#, "Retry-After": "5"])
        headers.setRetryAfter(seconds: nil)
        #expect(headers.values(for: "Retry-After") == ["5"], "an unknown delay leaves a known one")
    }
}
