import Testing

@testable import TodoServer

@Suite("StrictJSONParser")
struct StrictJSONParserTests {
    /// The failure, if parsing failed.
    private func failure(_ bytes: [UInt8]) -> StrictJSONParser.Failure? {
        if case .failure(let failure) = StrictJSONParser.parse(bytes) { return failure }
        return nil
    }

    private func value(_ text: String) -> JSONValue? {
        try? StrictJSONParser.parse(Array(text.utf8)).get()
    }

    @Test(
        "accepts RFC 8259 texts",
        arguments: [
            #"{}"#, #"[]"#, #"{"title":"x","completed":false,"order":-0.5e+3,"dueDate":null}"#, #" [1, 2.5, -0, 1E9, true] "#,
            #""\u00e9\ud83d\ude00\n\"\\\/""#, "0", #"{"a":{"b":[{"c":[]}]}}"#, "{\"é\":\"ü😀\"}",
        ])
    func accepts(text: String) {
        #expect(failure(Array(text.utf8)) == nil)
    }

    @Test(
        "refuses what JSONDecoder lets through or chokes on",
        arguments: [
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
        #expect(failure(Array(text.utf8))?.message == message)
    }

    @Test("refuses control characters and invalid UTF-8 inside strings")
    func bytes() {
        #expect(failure(Array("{\"a\":\"x\ny\"}".utf8))?.message == "unescaped control character in string")
        #expect(failure([0x22, 0xC3, 0x28, 0x22])?.message == "string is not valid UTF-8")
        #expect(failure([0x22, 0xFF, 0x22])?.message == "string is not valid UTF-8")
    }

    @Test("bounds nesting depth and reports the offset")
    func depth() {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(failure(Array(deep.utf8)) == .init(message: "nested deeper than 64 levels", offset: 64))
        let fine = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(failure(Array(fine.utf8)) == nil)
    }

    @Test("integersByValue: an integer by its literal's exact value, a fraction at any precision stays a number")
    func integersByValue() {
        func value(_ text: String) -> JSONValue? { try? StrictJSONParser.parse(Array(text.utf8), integersByValue: true).get() }
        #expect(
            value("[1.0,1e2,100e-2,-0.0,0e-99999999999999999999,-9223372036854775808.0]")
                == .array([
                    .integer(1), .integer(100), .integer(1), .integer(0), .integer(0), .integer(Int.min),
                ]))
        #expect(
            value("[9007199254740990.9,1.0000000000000001,1e-400,2.5,9223372036854775808.0,1e400]")
                == .array([
                    .number(9_007_199_254_740_991), .number(1), .number(0), .number(2.5), .number(9_223_372_036_854_775_808),
                    .number(.infinity),
                ]))
    }

    @Test("builds the values: integers, doubles, escapes, nesting")
    func values() {
        #expect(
            value(#"{"a":[1,-2.5,1e2,true,null,"x\u00e9\n"],"b":{}}"#)
                == .object([
                    "a": .array([.integer(1), .number(-2.5), .number(100), .bool(true), .null, .string("xé\n")]), "b": .object([:]),
                ]))
        #expect(value("9223372036854775807") == .integer(Int.max))
        #expect(value("9223372036854775808") == .number(9_223_372_036_854_775_808))
        #expect(value("1e400") == .number(.infinity))
        #expect(value("-0") == .integer(0))
        #expect(value("1.0") == .number(1))
        #expect(value(#""\ud83d\ude00""#) == .string("😀"))
    }
}
