import Testing

@testable import TodoServer

@Suite("JSON object reader")
struct JSONObjectReaderTests {
    private func detail(_ body: String) -> String? {
        if case .failure(let problem) = JSONObjectReader().readObject(Array(body.utf8)) { return problem.detail }
        return nil
    }

    @Test(
        "a form-encoded body is told to send JSON",
        arguments: ["title=Buy+milk", "title=Buy%20milk&completed=true", "a=", "x_y.z=1", "true=1"])
    func form(body: String) {
        #expect(
            detail(body)
                == #"The body is form-encoded (name=value), not JSON; send JSON (Content-Type: application/json), such as {"title":"Buy milk"}."#
        )
    }

    @Test(
        "other bad bodies keep the parser's message",
        arguments: [
            (#"{"title":"x",}"#, "The body is not valid JSON: trailing comma in object at byte 13."),
            ("=x", "The body is not valid JSON: unexpected character, expected a value at byte 0."),
            ("title", "The body is not valid JSON: invalid literal, expected true at byte 0."),
        ])
    func notForm(body: String, expected: String) {
        #expect(detail(body) == expected)
    }
}
