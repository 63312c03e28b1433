import Foundation
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

@Suite("JSONWriter")
struct JSONWriterTests {
    private func written(_ body: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        body(&writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test("escapes quote, backslash and every control character; passes the rest through")
    func escaping() {
        #expect(written { $0.string(#"a"b\c/d"#) } == #""a\"b\\c/d""#)
        #expect(written { $0.string("\u{8}\u{C}\n\r\t") } == #""\b\f\n\r\t""#)
        for byte in UInt8(0)..<0x20 where ![0x08, 0x09, 0x0A, 0x0C, 0x0D].contains(byte) {
            let hex = String(byte, radix: 16)
            #expect(written { $0.string(String(UnicodeScalar(byte))) } == "\"\\u00\(hex.count == 1 ? "0" + hex : hex)\"")
        }
        #expect(written { $0.string("é😀\u{7F}\u{2028}") } == "\"é😀\u{7F}\u{2028}\"")
        #expect(written { $0.string("") } == #""""#)
    }

    @Test("writes integers exactly, extremes included", arguments: [0, 7, 10, -1, 523, -9_007_199_254_740_991, Int.max, Int.min])
    func integers(value: Int) {
        #expect(written { $0.int(value) } == String(value))
    }

    @Test("writes times as RFC 3339 UTC with milliseconds, and days as YYYY-MM-DD")
    func dates() {
        #expect(written { $0.timestamp(Timestamp(millisecondsSinceEpoch: 1_795_341_600_123)) } == #""2026-11-22T10:00:00.123Z""#)
        #expect(written { $0.timestamp(Timestamp(millisecondsSinceEpoch: -1)) } == #""1969-12-31T23:59:59.999Z""#)
        #expect(written { $0.timestamp(Timestamp(millisecondsSinceEpoch: 0)) } == #""1970-01-01T00:00:00.000Z""#)
        #expect(written { $0.day(CalendarDay("0001-02-03")!) } == #""0001-02-03""#)
    }

    @Test("places commas between members and elements, at every depth")
    func structure() {
        let text = written { w in
            w.beginObject()
            w.key("a"); w.beginArray(); w.int(1); w.bool(true); w.null(); w.beginObject(); w.endObject(); w.beginArray(); w.endArray();
            w.endArray()
            w.key("b");
            Array("x".utf8).withUnsafeBufferPointer { x in
                Array("y\"z".utf8).withUnsafeBufferPointer { w.string(utf8: x, "/todos/", utf8: $0) }
            }
            w.key("c"); w.raw(Array(#"{"k":[1]}"#.utf8))
            w.key("d" as String); w.bool(false)
            w.endObject()
        }
        #expect(text == #"{"a":[1,true,null,{},[]],"b":"x/todos/y\"z","c":{"k":[1]},"d":false}"#)
    }

    @Test("random strings round-trip through Foundation's parser")
    func roundTrip() throws {
        let seed = testSeed("JSONWriterTests")
        var generator = SplitMix64(seed: seed)
        let alphabet: [Character] = ["a", "\"", "\\", "/", "\n", "\u{0}", "\u{1F}", "é", "😀", " ", "\u{2028}", "\t", "}", "["]
        for _ in 0..<500 {
            let value = String((0..<Int.random(in: 0...30, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            let text = written { w in
                w.beginArray(); w.string(value); w.endArray()
            }
            #expect((try? StrictJSONParser.parse(Array(text.utf8)).get()) == .array([.string(value)]))
            let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String]
            #expect(parsed == [value])
        }
    }

    @Test("a to-do writes every field, nulls included, in name order")
    func todo() {
        var data = makeTodo("abc", title: "T", order: -4, due: "2026-11-24")
        #expect(
            written { TodoViewModel(data, baseURL: "http://h:1").write(to: &$0) }
                == #"{"completed":false,"createdAt":"2026-11-22T10:00:00.000Z","dueDate":"2026-11-24","id":"abc","order":-4,"title":"T","updatedAt":"2026-11-22T10:00:00.000Z","url":"http://h:1/todos/abc"}"#
        )
        data.order = nil
        data.dueDate = nil
        data.completed = true
        #expect(
            written { TodoViewModel(data, baseURL: "http://h:1").write(to: &$0) }
                == #"{"completed":true,"createdAt":"2026-11-22T10:00:00.000Z","dueDate":null,"id":"abc","order":null,"title":"T","updatedAt":"2026-11-22T10:00:00.000Z","url":"http://h:1/todos/abc"}"#
        )
    }

    @Test("JSON escapes a control character as \\u00XX in lower case")
    func jsonEscape() {
        var writer = JSONWriter(capacity: 16)
        writer.string("a\u{1F}\u{01}b")
        #expect(String(decoding: writer.finish(), as: UTF8.self) == #""a\u001f\u0001b""#)
    }

    @Test("a time and a day before year 0 are written in ISO 8601's expanded form")
    func yearsBeforeZero() {
        var writer = JSONWriter(capacity: 64)
        writer.beginArray()
        writer.timestamp(Timestamp(millisecondsSinceEpoch: -62_167_219_200_001))
        writer.day(CalendarDay(daysSinceEpoch: -719_529))
        writer.endArray()
        #expect(String(decoding: writer.finish(), as: UTF8.self) == #"["-0001-12-31T23:59:59.999Z","-0001-12-31"]"#)
    }
}
