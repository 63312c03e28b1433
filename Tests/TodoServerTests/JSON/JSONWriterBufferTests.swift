import Foundation
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

@Suite("JSONWriter on its raw buffer")
struct JSONWriterBufferTests {
    /// The reference: each byte escaped on its own, as the writer's first version did.
    private func escapedByteByByte(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{8}": out += "\\b"
            case "\u{C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    @Test("escapes at every position of the eight-byte steps, in strings up to 40 bytes")
    func escapesAtEveryOffset() {
        for length in 0...40 {
            for position in 0..<max(length, 1) {
                for special in ["\"", "\\", "\u{0}", "\u{1F}", "\n", "é", "\u{7F}", " ", "~", "!"] {
                    var characters = Array(repeating: "a", count: length)
                    if length > 0 { characters[position] = special }
                    let value = characters.joined()
                    var writer = JSONWriter(capacity: 1)
                    writer.string(value)
                    #expect(
                        String(decoding: writer.finish(), as: UTF8.self) == escapedByteByByte(value),
                        "\(length) \(position) \(special.debugDescription)")
                }
            }
        }
    }

    @Test("grows from a one-byte buffer to 200 to-dos; finish and bytes give the same output")
    func growth() {
        let data = makeTodo("abc", title: String(repeating: "t\"", count: 300), order: 12, due: "2026-11-24")
        let models = Array(repeating: TodoViewModel(data, baseURL: "http://h:1"), count: 200)
        var small = JSONWriter(capacity: 1)
        models.write(to: &small)
        var sized = JSONWriter(capacity: models.jsonSizeHint)
        models.write(to: &sized)
        let one = {
            var w = JSONWriter(); models[0].write(to: &w); return w.bytes
        }()
        let expected = [UInt8(ascii: "[")] + Array(repeating: one, count: 200).joined(separator: [UInt8(ascii: ",")]) + [UInt8(ascii: "]")]
        #expect(small.bytes == expected)
        #expect(small.finish() == expected)
        #expect(sized.finish() == expected)
        #expect(
            String(decoding: one, as: UTF8.self).hasPrefix(
                #"{"completed":false,"createdAt":"2026-11-22T10:00:00.000Z","dueDate":"2026-11-24","id":"abc","order":12,"title":"t\"t\""#))
    }

    @Test("timestamps across days, and back to a day seen before, match Timestamp's own text")
    func timestampsAcrossDays() {
        let seed = testSeed("JSONWriterBufferTests")
        var generator = SplitMix64(seed: seed)
        var instants: [Int64] = [
            0, -1, 86_399_999, 86_400_000, 0, 1_795_341_600_123, 1_795_341_600_124, -62_135_596_800_000, 253_402_300_799_999,
            253_402_300_800_000, 0,
        ]
        for _ in 0..<2000 { instants.append(Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &generator)) }
        var writer = JSONWriter(capacity: 8)
        writer.beginArray()
        for instant in instants { writer.timestamp(Timestamp(millisecondsSinceEpoch: instant)) }
        writer.endArray()
        let expected = "[" + instants.map { "\"\(Timestamp(millisecondsSinceEpoch: $0).description)\"" }.joined(separator: ",") + "]"
        #expect(String(decoding: writer.finish(), as: UTF8.self) == expected)
    }

    @Test("days from 0001 to 9999 match CalendarDay's own text")
    func days() {
        var writer = JSONWriter(capacity: 8)
        var expected: [String] = []
        writer.beginArray()
        for days in stride(from: -719_162, through: 2_932_896, by: 997) {
            let day = CalendarDay(daysSinceEpoch: days)
            writer.day(day)
            expected.append("\"\(day.description)\"")
        }
        writer.endArray()
        #expect(String(decoding: writer.finish(), as: UTF8.self) == "[" + expected.joined(separator: ",") + "]")
    }

    @Test("a string given as UTF-8 bytes is escaped like the String")
    func utf8Bytes() {
        let value = "a\"b\\c\u{1}é"
        var writer = JSONWriter()
        Array(value.utf8).withUnsafeBufferPointer { writer.string(utf8: $0) }
        #expect(String(decoding: writer.finish(), as: UTF8.self) == escapedByteByByte(value))
    }

    @Test("to-dos written in one step match the member-by-member text, for random fields")
    func oneStepToDos() {
        let seed = testSeed("JSONWriterBufferTests.oneStepToDos")
        var generator = SplitMix64(seed: seed)
        let alphabet = Array("abcXYZ019 -_/é😀~")
        var writer = JSONWriter(capacity: 4)
        var expected: [String] = []
        writer.beginArray()
        for index in 0..<300 {
            let title = String((0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            let completed = Bool.random(using: &generator)
            let orderValue = Bool.random(using: &generator) ? Int.random(in: Int.min...Int.max, using: &generator) : nil
            let dueDate =
                Bool.random(using: &generator) ? CalendarDay(daysSinceEpoch: Int.random(in: -719_162...2_932_896, using: &generator)) : nil
            let data = Todo(
                id: "id-\(index)", title: title, completed: completed, order: orderValue, dueDate: dueDate,
                createdAt: Timestamp(
                    millisecondsSinceEpoch: Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &generator)),
                updatedAt: Timestamp(millisecondsSinceEpoch: Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &generator))
            )
            let base = index % 2 == 0 ? "http://h:1" : "https://example.com"
            TodoViewModel(data, baseURL: base).write(to: &writer)
            let due = data.dueDate.map { "\"\($0.description)\"" } ?? "null"
            let order = data.order.map(String.init) ?? "null"
            expected.append(
                #"{"completed":\#(data.completed),"createdAt":"\#(data.createdAt)","dueDate":\#(due),"id":"\#(data.id)","order":\#(order),"title":"\#(data.title)","updatedAt":"\#(data.updatedAt)","url":"\#(base)/todos/\#(data.id)"}"#
            )
        }
        writer.endArray()
        #expect(String(decoding: writer.finish(), as: UTF8.self) == "[" + expected.joined(separator: ",") + "]")
    }

    @Test("a list's to-dos through the cursor's day cache: same day, next day at midnight, back to an earlier day")
    func cursorDayCache() {
        // createdAt and updatedAt of each to-do, in order: the cursor carries the last day from
        // one to-do (and one writer reservation) to the next.
        let pairs: [(Int64, Int64)] = [
            (1_795_341_600_123, 1_795_341_600_124),  // 2026-11-22, twice
            (1_795_391_999_999, 1_795_392_000_000),  // 23:59:59.999, then midnight of 2026-11-23
            (1_795_392_000_000, 1_795_341_600_000),  // 2026-11-23, back to 2026-11-22
            (0, -1),  // 1970-01-01, then 1969-12-31
            (-1, 86_400_000),  // 1969-12-31 again, then 1970-01-02
            (1_795_341_600_123, 1_795_341_600_123),  // 2026-11-22 once more
        ]
        let models = pairs.enumerated().map { index, pair in
            let data = Todo(
                id: "id-\(index)", title: "Task", completed: false, order: nil, dueDate: nil,
                createdAt: Timestamp(millisecondsSinceEpoch: pair.0), updatedAt: Timestamp(millisecondsSinceEpoch: pair.1))
            return TodoViewModel(data, baseURL: "http://h:1")
        }
        var writer = JSONWriter(capacity: 4)
        models.write(to: &writer)
        let text = String(decoding: writer.finish(), as: UTF8.self)
        let times = text.matches(of: /"(createdAt|updatedAt)":"([^"]*)"/).map { String($0.output.2) }
        #expect(
            times == [
                "2026-11-22T10:00:00.123Z", "2026-11-22T10:00:00.124Z",
                "2026-11-22T23:59:59.999Z", "2026-11-23T00:00:00.000Z",
                "2026-11-23T00:00:00.000Z", "2026-11-22T10:00:00.000Z",
                "1970-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z",
                "1969-12-31T23:59:59.999Z", "1970-01-02T00:00:00.000Z",
                "2026-11-22T10:00:00.123Z", "2026-11-22T10:00:00.123Z",
            ])
        #expect(text.hasPrefix(#"[{"completed":false,"createdAt":"2026-11-22T10:00:00.123Z","dueDate":null,"id":"id-0","#))
        #expect(text.hasSuffix(#""url":"http://h:1/todos/id-5"}]"#))
    }
}
