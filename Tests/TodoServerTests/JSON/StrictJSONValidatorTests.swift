import Testing
@testable import TodoServer

@Suite("StrictJSONValidator")
struct StrictJSONValidatorTests {
    @Test("accepts RFC 8259 texts", arguments: [
        #"{}"#, #"[]"#, #"{"title":"x","completed":false,"order":-0.5e+3,"dueDate":null}"#, #" [1, 2.5, -0, 1E9, true] "#,
        #""\u00e9\ud83d\ude00\n\"\\\/""#, "0", #"{"a":{"b":[{"c":[]}]}}"#, "{\"é\":\"ü😀\"}",
    ])
    func accepts(text: String) {
        #expect(StrictJSONValidator.validate(Array(text.utf8)) == nil)
    }

    @Test("refuses what JSONDecoder lets through or chokes on", arguments: [
        (#"{"title":"x",}"#, "trailing comma in object"),
        (#"[1,]"#, "trailing comma in array"),
        (#"{"title":"a","title":"b"}"#, "duplicate key \"title\""),
        (#"{"title":"a","\u0074itle":"b"}"#, "duplicate key \"title\""),
        (#"{"a":01}"#, "expected ',' or '}'"),
        (#"{"a":1.}"#, "invalid number: digits expected after '.'"),
        (#"{"a":.5}"#, "unexpected character, expected a value"),
        (#"{"a":+1}"#, "unexpected character, expected a value"),
        (#"{"a":NaN}"#, "unexpected character, expected a value"),
        (#"{"a":tru}"#, "invalid literal, expected true"),
        (#"{"a":"\x"}"#, "invalid escape sequence"),
        (#"{"a":"\ud800"}"#, "unpaired surrogate escape"),
        (#"{"a":1} x"#, "unexpected data after the JSON value"),
        (#"{'a':1}"#, "expected a string key"),
        (#"{"a" 1}"#, "expected ':'"),
        (#"{"a":1"#, "unexpected end of input, expected ',' or '}'"),
        (#""abc"#, "unterminated string"),
        ("", "unexpected end of input, expected a value"),
    ])
    func refuses(text: String, message: String) {
        #expect(StrictJSONValidator.validate(Array(text.utf8))?.message == message)
    }

    @Test("refuses control characters and invalid UTF-8 inside strings")
    func bytes() {
        #expect(StrictJSONValidator.validate(Array("{\"a\":\"x\ny\"}".utf8))?.message == "unescaped control character in string")
        #expect(StrictJSONValidator.validate([0x22, 0xC3, 0x28, 0x22])?.message == "string is not valid UTF-8")
        #expect(StrictJSONValidator.validate([0x22, 0xFF, 0x22])?.message == "string is not valid UTF-8")
    }

    @Test("bounds nesting depth and reports the offset")
    func depth() {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        let failure = StrictJSONValidator.validate(Array(deep.utf8))
        #expect(failure == .init(message: "nested deeper than 64 levels", offset: 64))
        let fine = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(StrictJSONValidator.validate(Array(fine.utf8)) == nil)
    }
}
