import TestSupport
import Testing

@testable import TodoServer

@Suite("Router: which declared body types are read")
struct BodyMediaTypeTests {
    @Test("JSON, +json and the form type are read, in any case and with parameters; other types are not")
    func knownValues() {
        let cases: [(String, Bool)] = [
            ("application/json", true),
            ("Application/JSON; charset=utf-8", true),
            (" \tapplication/json \r", true),
            ("application/problem+json", true),
            ("APPLICATION/VND.API+JSON;x=1", true),
            ("application/x-www-form-urlencoded", true),
            ("application/json\u{00A0}", true),
            (";application/json", true),
            ("application/jsonx", false),
            ("application+json", false),
            ("text/plain", false),
            ("", false),
            (" ; application/json", false),
            ("application/jsön", false),
        ]
        for (value, accepted) in cases {
            #expect(RequestScreening.acceptsBody(ofType: value) == accepted, "\(value.debugDescription)")
        }
    }

    @Test("on ASCII values the byte path decides as the general one does (random values)")
    func bytePathAgreesWithGeneralPath() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("BodyMediaTypeTests seed: \(seed)")
        var random = SplitMix64(seed: seed)
        let pieces = [
            "application/", "json", "+json", "x-www-form-urlencoded", "APPLICATION/", "JSON", ";", " ", "\t", "\u{0B}",
            "a", "/", "+", "charset=utf-8", "text/plain", "\u{1F}",
        ]
        var decidedOnBytes = 0
        for _ in 0..<5000 {
            let value = (0..<Int.random(in: 0...5, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let general = RequestScreening.acceptsBodyOfAnyType(value)
            let bytes = Array(value.utf8)
            if let onBytes = bytes.withUnsafeBufferPointer(RequestScreening.acceptsASCIIBody) {
                decidedOnBytes += 1
                #expect(onBytes == general, "seed \(seed): \(value.debugDescription)")
            }
            #expect(RequestScreening.acceptsBody(ofType: value) == general, "seed \(seed): \(value.debugDescription)")
        }
        #expect(decidedOnBytes > 2500)
    }
}
