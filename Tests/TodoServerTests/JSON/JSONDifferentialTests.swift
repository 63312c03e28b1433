import Foundation
import TestSupport
import Testing

@testable import TodoServer

/// The hand-written JSON parser against Foundation's `JSONSerialization`, on seeded
/// generated documents (the seed is printed; `TODO_TEST_SEED` repeats it).
///
/// The parser is stricter on purpose, and these are the only disagreements allowed, each asserted
/// in `deliberateDifferences`: it refuses duplicate keys (Foundation keeps the last), trailing
/// commas, a byte order mark and nesting deeper than 64 levels (Foundation: 512); and it reads a
/// number past `Double`'s range as infinity where Foundation refuses the document.
@Suite("Differential: JSON parser against Foundation's JSONSerialization", .tags(.singleThreaded))
struct JSONDifferentialTests {
    private static func seed(_ name: String) -> UInt64 { testSeed("JSONDifferentialTests.\(name)") }

    private static func foundation(_ bytes: [UInt8]) -> JSONValue? {
        (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])).flatMap(JSONValue.init(foundation:))
    }

    private static func strict(_ bytes: [UInt8]) -> Result<JSONValue, StrictJSONParser.Failure> {
        StrictJSONParser.parse(bytes)
    }

    @Test("damaged documents: both accept or both refuse, but for the deliberate differences (20,000 mutations)")
    func damagedDocumentsAgree() {
        var values = GeneratedJSON(seed: Self.seed("damaged"), numbers: true)
        var accepted = 0, refused = 0, deliberate = 0
        var mismatches: [String] = []
        for _ in 0..<20_000 {
            let bytes = values.damaged(Array(values.text(of: values.value(depth: 0)).utf8))
            let foundation = Self.foundation(bytes) != nil
            switch (Self.strict(bytes), foundation) {
            case (.success, true): accepted += 1
            case (.failure, false): refused += 1
            case (.failure(let failure), true) where Self.isDeliberate(failure): deliberate += 1
            case (.success(let value), false) where !value.isFinite: deliberate += 1
            case (let strict, _):
                mismatches.append("\(String(decoding: bytes, as: UTF8.self)) strict: \(strict), Foundation accepts: \(foundation)")
            }
        }
        print("JSONDifferentialTests.damaged: \(accepted) accepted by both, \(refused) refused by both, \(deliberate) deliberate")
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, first: \(mismatches.first ?? "")")
        #expect(accepted > 1000 && refused > 1000)
    }

    /// Strict refusals that Foundation lets through on purpose.
    private static func isDeliberate(_ failure: StrictJSONParser.Failure) -> Bool {
        failure.message.hasPrefix("duplicate key ") || failure.message.hasPrefix("trailing comma in ")
            || failure.message.hasPrefix("nested deeper than ")
    }

    @Test("the deliberate differences, one by one")
    func deliberateDifferences() throws {
        for text in [#"{"a":1,"a":2}"#, #"{"a":1,"\u0061":2}"#, #"[1,]"#, #"{"a":1,}"#, "\u{FEFF}{}"] {
            let bytes = Array(text.utf8)
            #expect(throws: StrictJSONParser.Failure.self, "\(text)") { try Self.strict(bytes).get() }
            #expect(Self.foundation(bytes) != nil, "\(text)")
        }
        #expect(Self.foundation(Array(#"{"a":1,"a":2}"#.utf8)) == .object(["a": .integer(2)]))
        let deep = Array((String(repeating: "[", count: 65) + String(repeating: "]", count: 65)).utf8)
        #expect(throws: StrictJSONParser.Failure.self) { try Self.strict(deep).get() }
        #expect(Self.foundation(deep) != nil)
        for text in ["1e400", "-1e400", "[2e308]"] {
            let bytes = Array(text.utf8)
            #expect(try Self.strict(bytes).get().isFinite == false, "\(text)")
            #expect(Self.foundation(bytes) == nil, "\(text)")
        }
        // And where both refuse what a lenient reader might take: lone surrogates, control characters, leading zeros.
        for text in [#""\ud800""#, #""\udc00x""#, "\"a\u{1}b\"", "01", "1.", ".5", "[1] x", ""] {
            let bytes = Array(text.utf8)
            #expect(throws: StrictJSONParser.Failure.self, "\(text)") { try Self.strict(bytes).get() }
            #expect(Self.foundation(bytes) == nil, "\(text)")
        }
    }
}
