import Glibc
import TestSupport
import Testing

@testable import EventHTTP

/// `HTTPFraming.consume` reads whole units (a method, a field name, a line end…) at once only when
/// all of the unit is in the bytes it is given; fed one byte at a time, it reads every byte with the
/// per-byte state machine. So feeding a stream whole, byte by byte and in random pieces must give
/// the same outcome: this compares the fast paths against the per-byte reference, on a corpus of
/// valid and invalid streams under every head limit around their length, and on random mutations.
@Suite("HTTPFraming: whole, byte by byte and in random pieces, a stream gets the same decisions", .tags(.singleThreaded))
struct HTTPFramingDifferentialTests {
    /// All that feeding a stream decides: summed events (adjacent removals joined) and the final state.
    struct Outcome: Equatable, CustomStringConvertible {
        var events = FramingEvents()
        var heads: Int { events.headsCompleted }
        var messages: Int { events.messagesCompleted }
        var removals: [Range<Int>] { events.removals }
        var refusal: HTTPFraming.Refusal? { events.refusal }
        var discardFrom: Int? { events.discardFrom }
        var isIdle = false
        var isFinished = false
        var position = 0

        var description: String {
            "heads \(heads) messages \(messages) removals \(removals) refusal \(refusal.map { "\($0.status) at \($0.cutOffset): \($0.detail)" } ?? "none") discardFrom \(discardFrom.map(String.init) ?? "none") idle \(isIdle) finished \(isFinished) position \(position)"
        }
    }

    /// Feeds `bytes` cut at `cuts` (increasing offsets inside the stream), one `consume` per piece;
    /// returns the outcome so far after each piece, with the offset where the piece ends.
    static func feed(_ bytes: [UInt8], cuts: [Int], limits: HTTPFraming.Limits) -> [(end: Int, outcome: Outcome)] {
        var framing = HTTPFraming(limits: limits)
        var outcome = Outcome()
        var outcomes: [(end: Int, outcome: Outcome)] = []
        var start = 0
        for end in cuts + [bytes.count] where end > start {
            var events = FramingEvents()
            bytes[start..<end].withUnsafeBytes { framing.consume($0, into: &events) }
            outcome.events.append(events)
            outcome.isIdle = framing.isIdle
            outcome.isFinished = framing.isFinished
            outcome.position = framing.position
            outcomes.append((end, outcome))
            start = end
        }
        return outcomes
    }

    /// The outcome of feeding `bytes` whole.
    static func feedWhole(_ bytes: [UInt8], limits: HTTPFraming.Limits) -> Outcome {
        feed(bytes, cuts: [], limits: limits).last?.outcome ?? Outcome()
    }

    /// Feeds `bytes` byte by byte (the per-byte reference), then whole and cut at random: after each
    /// piece, the outcome so far must be the reference's after the same bytes (so a refusal is also
    /// reported by the same `consume` call). Returns the outcome of the whole stream.
    @discardableResult
    static func expectSameOutcome(
        _ bytes: [UInt8], limits: HTTPFraming.Limits, randomSplits: Int, _ random: inout SplitMix64, seed: UInt64,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Outcome {
        var reference = [Outcome()]
        reference += feed(bytes, cuts: Array(0..<bytes.count), limits: limits).map(\.outcome)
        var cuttings: [[Int]] = [[]]
        for _ in 0..<randomSplits {
            // Mostly small pieces, sometimes a few large ones.
            let chance = [2, 4, 16][Int(random.next() % 3)]
            cuttings.append((1..<max(1, bytes.count)).filter { _ in random.next() % UInt64(chance) == 0 })
        }
        for cuts in cuttings {
            guard let (end, split) = feed(bytes, cuts: cuts, limits: limits).first(where: { $0.outcome != reference[$0.end] }) else {
                continue
            }
            Issue.record(
                "seed \(seed) limits \(limits) stream \(String(decoding: bytes, as: UTF8.self).debugDescription) cut at \(cuts), after \(end) bytes:\n  byte by byte \(reference[end])\n  in pieces    \(split)",
                sourceLocation: sourceLocation)
        }
        return reference[bytes.count]
    }

    static func seed() -> UInt64 {
        getenv("FRAMING_SEED").flatMap { UInt64(String(cString: $0)) } ?? UInt64.random(in: 0...UInt64.max)
    }

    static let id = "0b3c2a1e-5f4d-4e6a-9b8c-7d6e5f4a3b2c"
    static let get = "GET /todos/\(id) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    static let patch =
        "PATCH /todos/\(id) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 18\r\n\r\n{\"completed\":true}"
    static let chunked =
        "POST /todos HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3;a=b\r\nabc\r\n2 ; q=\"x y\"\r\nde\r\n0;last\r\nX-T: 1\r\nY:\r\n\r\n"

    /// Valid and invalid streams that reach every unit the fast paths read and the edges around them.
    static let corpus: [String] = {
        let host = "Host: h\r\n"
        func request(_ fields: String, method: String = "GET", target: String = "/", version: String = "HTTP/1.1\r\n") -> String {
            "\(method) \(target) \(version)\(fields)\r\n"
        }
        func post(_ fields: String, body: String = "") -> String { "POST /todos HTTP/1.1\r\n\(host)\(fields)\r\n\(body)" }
        let requests: [String] = [
            Self.get, Self.patch, Self.chunked, Self.get + Self.patch + Self.chunked + Self.get, Self.patch + Self.patch,
            "GET / HTTP/1.0\n\n", "GET / HTTP/1.1\nHost: h\n\n", "GET / HTTP/1.1\r\nHost: h\n\r\n", "GET / HTTP/1.1\nHost: h\r\n\n",
            "GET / HTTP/1.0\r\n\r\n", "\r\n\r\n" + Self.get, "\n\n\r" + Self.get, "\r\r\n" + Self.get,
        ]
        let requestLines: [String] = [
            // Request lines.
            request(host, method: "HEAD") + "x", request(host + "Content-Length: 3\r\n", method: "HEAD") + "abcGET / HTTP/1.1\r\n",
            request(host + "Content-Length: 3\r\n", method: "BREW") + "abc", request(host + "Content-Length: 3\r\n", method: "get") + "abc",
            request(host + "Content-Length: 3\r\n", method: "OPTIONS") + "abc",
            request(host + "Content-Length: 3\r\n", method: "CONNECT") + "abc",
            request(host + "Content-Length: 3\r\n", method: "DELETE") + "abc",
            request(host + "Content-Length: 3\r\n", method: "PUT") + "abc",
            request(host + "Content-Length: 3\r\n", method: "PATCHY") + "abc",
            request(host + "Content-Length: 3\r\n", method: "PATC") + "abc",
            request(host, method: String(repeating: "M", count: 31)), request(host, method: String(repeating: "M", count: 32)),
            request(host, method: String(repeating: "M", count: 33)), request(host, method: "M"), request(host, method: "G@T"),
            request(host, method: ""),
            request(host, method: "GET\t"), " GET / HTTP/1.1\r\n\r\n", "\u{16}\u{3}\u{1}\u{2}\u{0}",
            request(host, target: ""), request(host, target: "/a b"), request(host, target: "/a\u{7F}"),
            request(host, target: "/\u{80}\u{FF}"),
            request(host, target: "*"), request(host, target: "h"), request(host, target: "H/x"), request(host, target: "hx/y"),
            request(host, target: "http://example.com:8080/todos?x=1"), request(host, target: "HTTPS://a/"),
            request(host, target: "http://a"),
            request(host, target: "http:/a/"), request(host, target: "http://a?b/c"), request(host, target: "https://a#/b"),
            request(host, target: "/http://a/"), request(host, target: "http://" + String(repeating: "a", count: 40) + "/"),
            request(host, target: "ftp://x/healthz"), request(host, target: "http:///todos"), request(host, target: "http://"),
            request(host, target: "http://?x"), request(host, target: "healthz"), request(host, target: "/\u{FF}"),
            request(host, method: "CONNECT", target: "example.com:443"), request(host, method: "OPTIONS", target: "*"),
            request(host, version: "HTTP/1.1\n"), request(host, version: "HTTP/1.0\r\n"), request("", version: "HTTP/1.0\r\n"),
            request(host, version: "HTTP/1.2\r\n"), request(host, version: "HTTP/2.0\r\n"), request(host, version: "HTTP/0.9\r\n"),
            request(host, version: "HTTP/1.1 \r\n"), request(host, version: "HTTP/1.1\r\r\n"), request(host, version: "HTTP/1.\r\n"),
            request(host, version: "HTTP/1.1x\r\n"), request(host, version: "http/1.1\r\n"), request(host, version: "HTTP/11.1\r\n"),
            request(host, version: "HTTP/1/1\r\n"), request(host, version: "HTTP/1.1\rX"), request(host, version: "HTTP/1.1"),
            request(host, version: "HTTQ/1.1\r\n"), request(host, version: "HTTP/1:1\r\n"), request(host, version: "HTTP/1.a\r\n"),
            request(host, version: "HTTP/1.3\r\n"), request(host, version: "HTTP/1.1\u{0}\r\n"),
        ]
        let fieldNames: [String] = [
            // Field names: the special ones in any case, and names as long as them that are not them.
            request(""), request("HOST: h\r\n"), request("hOsT: h\r\n"), request("hosT: h\r\n"), request("hosx: h\r\n"),
            request("Hos1: h\r\n"),
            request("Hos: h\r\n"), request("Hosts: h\r\n"), request("Host : h\r\n"), request("Host\t: h\r\n"), request("Host h\r\n"),
            request("Host\r\n"),
            request("Host:h\r\n"), request("Host:\r\n"), request(host + host), request(": h\r\n"), request("X@Y: z\r\n"),
            request("X Y: z\r\n"),
            request(host + "X: a\r\n folded\r\n"), request(host + "X: a\r\n\tfolded\r\n"), request(" Host: h\r\n"),
            request(host + "X: a\u{0}b\r\n"), request(host + "X: a\u{7F}b\r\n"), request(host + "X: a\rb\r\n"), request(host + "X: a\r"),
            request(host + "X: \u{80}\u{FF}\t \r\n"), request(host + "X:\r\n"), request(host + "X: a\nY: b\n"), request(host + "\r"),
            request(host + "\rX"), request(host + "X-\(String(repeating: "y", count: 30)): 1\r\n"),
        ]
        let contentLengths: [String] = [
            request(host + "Content-Lengthxxxxxxxxxxxxx: 3\r\n") + "abc",
            post("Content-Length: 3\r\n", body: "abc"), post("CONTENT-LENGTH: 3\r\n", body: "abc"),
            post("cOnTeNt-LeNgTh: 3\r\n", body: "abc"), post("content-lengtX: 3\r\n", body: "abc"),
            post("content_length: 3\r\n", body: "abc"), post("Content-Lengths: 3\r\n", body: "abc"),
            post("Content-Lengt: 3\r\n", body: "abc"), post("xontent-length: 3\r\n", body: "abc"),
            post("Content-Length : 3\r\n", body: "abc"), post("Content-Length:3\r\n", body: "abc"),
            post("Content-Length: \t 3 \t\r\n", body: "abc"), post("Content-Length: 3 \r\n", body: "abc"),
            post("Content-Length: 0\r\n"), post("Content-Length: 000000000000000003\r\n", body: "abc"),
            post("Content-Length: 0000000000000000003\r\n", body: "abc"), post("Content-Length: 00000000000000000000003\r\n", body: "abc"),
            post("Content-Length: 9223372036854775807\r\n"), post("Content-Length: 9223372036854775808\r\n"),
            post("Content-Length: 99999999999999999999\r\n"), post("Content-Length: 18446744073709551616\r\n"),
            post("Content-Length: 100\r\n"), post("Content-Length: 101\r\n"), post("Content-Length: 18\r\n"),
            post("Content-Length:\r\n"), post("Content-Length: \r\n"), post("Content-Length: 5 5\r\n"), post("Content-Length: +5\r\n"),
            post("Content-Length: -1\r\n"), post("Content-Length: 5a\r\n"), post("Content-Length: 0x5\r\n"),
            post("Content-Length: 3\n", body: "abc"), post("Content-Length: 3\r", body: "abc"), post("Content-Length: 3\u{0}\r\n"),
        ]
        let transferEncodings: [String] = [
            post("Content-Length: 3\r\nContent-Length: 3\r\n", body: "abc"),
            post("Content-Length: 3\r\nTransfer-Encoding: chunked\r\n", body: "0\r\n\r\n"),
            post("Transfer-Encoding: chunked\r\n", body: "0\r\n\r\n"), post("TRANSFER-ENCODING: CHUNKED\r\n", body: "0\r\n\r\n"),
            post("transfer-encodinG: chunked\r\n", body: "0\r\n\r\n"), post("transfer-encodinx: chunked\r\n", body: "0\r\n\r\n"),
            post("transfer_encoding: chunked\r\n", body: "0\r\n\r\n"), post("xransfer-encoding: chunked\r\n", body: "0\r\n\r\n"),
            post("Transfer-Encoding: gzip, chunked\r\n", body: "0\r\n\r\n"), post("Transfer-Encoding: chunked, gzip\r\n"),
            post("Transfer-Encoding: chun ked\r\n"), post("Transfer-Encoding:  chunked \r\n", body: "0\r\n\r\n"),
            post("Transfer-Encoding: chunked;q=1\r\n"), post("Transfer-Encoding: ,chunked,\r\n", body: "0\r\n\r\n"),
            post("Transfer-Encoding:\r\n"), post("Transfer-Encoding: gzip\r\n"),
            "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        ]
        // Chunked POSTs, by their bodies.
        let chunkBodies: [String] = [
            "A\r\n0123456789\r\n1\r\nx\r\n0\r\n\r\n",
            "3\nabc\n0\n\n",
            "3 \r\nabc\r\n0\r\n\r\n",
            "3\t;x\r\nabc\r\n0\r\n\r\n",
            "3 x\r\n",
            "0x11\r\n", "\r\n",
            "1;a\u{1}\r\n", "65\r\n",
            "FFFFFFFFFFFFFFFFF\r\n",
            // Issue 35: sizes of 2^63 and more, and leading zeros (the line's length bounds them).
            "ffffffffffffffff\r\n\r\nDELETE /todos HTTP/1.1\r\nHost: h\r\n\r\n",
            "8000000000000000\r\n",
            "1;a=\"x \\\"y\"\r\nx\r\n0\r\n\r\n",
            "0;a=\"\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n\"\r\n\r\n",
            "1;a==b\r\nx\r\n0\r\n\r\n",
            "fffffffffffffff0\r\n",
            "000000000000000011\r\n" + String(repeating: "x", count: 17) + "\r\n0\r\n\r\n",
            "0000000000000000000000000000000001\r\nx\r\n0\r\n\r\n",
            "3\r\nabcX\r\n",
            "3\r\nabc\rX",
            "0\r\nBad Trailer: x\r\n\r\n",
            "0\r\n X: y\r\n\r\n",
            "0\r\nX: \u{0}\r\n\r\n",
            "0\r\nX: y\n\n", "0\r\nX: y\rZ",
            "0\r\n\rX",
            "1;" + String(repeating: "e", count: 70) + "\r\nx\r\n0\r\n\r\n",
        ]
        let chunks = chunkBodies.map { post("Transfer-Encoding: chunked\r\n", body: $0) }
        let streams = requests + requestLines + fieldNames + contentLengths + transferEncodings + chunks
        // Pipelined: each of the first ones followed by a GET and the start of another request.
        return streams + streams.prefix(12).map { $0 + Self.get + "X" }
    }()

    @Test("the corpus, under every head limit from 0 to past the stream's length and a few body and chunk-line limits")
    func corpusUnderEveryLimit() {
        let seed = Self.seed()
        print("HTTPFramingDifferentialTests.corpusUnderEveryLimit seed \(seed)")
        var random = SplitMix64(seed: seed)
        var refusedForHeadLimit = 0
        for stream in Self.corpus {
            let bytes = Array(stream.utf8)
            for maxHeadBytes in 0...bytes.count + 2 {
                for (maxBody, maxChunkLine) in [(100, 64), (2, 4)] {
                    let limits = HTTPFraming.Limits(maxHeadBytes: maxHeadBytes, maxBodyBytes: maxBody, maxChunkLineBytes: maxChunkLine)
                    let whole = Self.expectSameOutcome(bytes, limits: limits, randomSplits: 1, &random, seed: seed)
                    if whole.refusal?.status == 431 { refusedForHeadLimit += 1 }
                }
            }
            for maxBody in [0, 3, 17, 18, 19, Int.max] {
                let limits = HTTPFraming.Limits(maxHeadBytes: 1024, maxBodyBytes: maxBody, maxChunkLineBytes: 64)
                Self.expectSameOutcome(bytes, limits: limits, randomSplits: 2, &random, seed: seed)
            }
        }
        #expect(refusedForHeadLimit > 1000)
    }

    @Test("hundreds of random mutations of valid streams: byte changes, insertions, deletions, repeats")
    func randomMutations() {
        let seed = Self.seed()
        print("HTTPFramingDifferentialTests.randomMutations seed \(seed)")
        var random = SplitMix64(seed: seed)
        let valid = [
            Self.get, Self.patch, Self.chunked, Self.get + Self.patch, "GET / HTTP/1.0\n\n",
            "DELETE /todos/1 HTTP/1.1\r\nhost: h\r\ncontent-length: 0\r\n\r\n",
            "PUT /t HTTP/1.1\r\nHOST: h\r\nTRANSFER-ENCODING: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n",
            "GET http://a:1/x HTTP/1.1\r\nHost: a\r\nX-Y: \u{80}z\r\n\r\n",
        ].map { Array($0.utf8) }
        let interesting: [UInt8] = Array("\r\n \t:;,0123456789aAhHxX-/.\u{0}\u{7F}".utf8) + [0x80, 0xFF]
        var refusals = 0
        for _ in 0..<600 {
            var bytes = valid[Int(random.next() % UInt64(valid.count))]
            for _ in 0...Int(random.next() % 3) {
                let at = Int(random.next() % UInt64(bytes.count))
                let byte =
                    random.next() % 2 == 0
                    ? interesting[Int(random.next() % UInt64(interesting.count))] : UInt8(truncatingIfNeeded: random.next())
                switch random.next() % 5 {
                case 0, 1: bytes[at] = byte
                case 2: bytes.insert(byte, at: at)
                case 3: if bytes.count > 1 { bytes.remove(at: at) }
                default: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + Int(random.next() % 20))], at: at)
                }
            }
            let maxHeadBytes = random.next() % 2 == 0 ? 1024 : Int(random.next() % UInt64(bytes.count + 4))
            let limits = HTTPFraming.Limits(
                maxHeadBytes: maxHeadBytes, maxBodyBytes: [3, 18, 100][Int(random.next() % 3)], maxChunkLineBytes: 16)
            if Self.expectSameOutcome(bytes, limits: limits, randomSplits: 3, &random, seed: seed).refusal != nil { refusals += 1 }
        }
        // Most mutations are refused, some are not.
        #expect(refusals > 100 && refusals < 600, "seed \(seed): \(refusals) refused")
    }

    @Test("every byte that stops a target or a field value, at every place in an 18-byte run of them")
    func stopBytesInWords() {
        let seed = Self.seed()
        print("HTTPFramingDifferentialTests.stopBytesInWords seed \(seed)")
        var random = SplitMix64(seed: seed)
        let limits = HTTPFraming.Limits(maxHeadBytes: 1024, maxBodyBytes: 100, maxChunkLineBytes: 64)
        for place in 0..<18 {
            for stop: UInt8 in [0x00, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x21, 0x7E, 0x7F, 0x80, 0xFF] {
                var text = Array(repeating: UInt8(ascii: "a"), count: 18)
                text[place] = stop
                let target = Array("GET /".utf8) + text + Array(" HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
                let value = Array("GET / HTTP/1.1\r\nHost: h\r\nX: ".utf8) + text + Array("\r\n\r\n".utf8)
                Self.expectSameOutcome(target, limits: limits, randomSplits: 2, &random, seed: seed)
                Self.expectSameOutcome(value, limits: limits, randomSplits: 2, &random, seed: seed)
            }
        }
    }

    @Test("a head exactly at the limit is accepted; one byte over, it is refused at the start of the line that crosses it")
    func headLimitEdges() {
        for stream in [Self.get, Self.patch] {
            let bytes = Array(stream.utf8)
            // Counted: the request line and the field lines with their CRLF, and the CR of the empty line.
            let headLength = bytes.firstRange(of: Array("\r\n\r\n".utf8))!.lowerBound + 3
            for cuts in [[], Array(0..<bytes.count)] {
                let atLimit = Self.feed(
                    bytes, cuts: cuts, limits: .init(maxHeadBytes: headLength, maxBodyBytes: 100, maxChunkLineBytes: 64)
                ).last!.outcome
                #expect(atLimit.refusal == nil && atLimit.heads == 1 && atLimit.messages == 1 && atLimit.isIdle)
                let over = Self.feed(
                    bytes, cuts: cuts, limits: .init(maxHeadBytes: headLength - 1, maxBodyBytes: 100, maxChunkLineBytes: 64)
                ).last!.outcome
                #expect(over.refusal?.status == 431)
                // The empty line crosses it: the cut is where the empty line starts.
                #expect(over.refusal?.cutOffset == headLength - 1)
            }
        }
    }

    @Test("field names are recognised in any case, and only the special ones")
    func fieldNamesInAnyCase() {
        let limits = HTTPFraming.Limits(maxHeadBytes: 1024, maxBodyBytes: 100, maxChunkLineBytes: 64)
        for name in ["Content-Length", "content-length", "CONTENT-LENGTH", "cOnTeNt-lEnGtH"] {
            let outcome = Self.feedWhole(Array("POST / HTTP/1.1\r\nHost: h\r\n\(name): 3\r\n\r\nabc".utf8), limits: limits)
            #expect(outcome.messages == 1 && outcome.isIdle, "\(name)")
        }
        for name in ["content-lengtX", "content-lengtH2", "Content_Length", "Content-Lengt"] {
            // Not a Content-Length: the body is read as the next request line.
            let outcome = Self.feedWhole(Array("POST / HTTP/1.1\r\nHost: h\r\n\(name): 3\r\n\r\nab\r\n".utf8), limits: limits)
            #expect(outcome.messages == 1 && outcome.refusal?.status == 400, "\(name)")
        }
        for name in ["Host", "hosT", "HOST"] {
            #expect(Self.feedWhole(Array("GET / HTTP/1.1\r\n\(name): h\r\n\r\n".utf8), limits: limits).messages == 1, "\(name)")
        }
        for name in ["Hosx", "Hos", "Hostt", "H0st"] {
            #expect(Self.feedWhole(Array("GET / HTTP/1.1\r\n\(name): h\r\n\r\n".utf8), limits: limits).refusal?.status == 400, "\(name)")
        }
        for name in ["Transfer-Encoding", "TRANSFER-ENCODING", "transfer-encoding"] {
            let outcome = Self.feedWhole(Array("POST / HTTP/1.1\r\nHost: h\r\n\(name): chunked\r\n\r\n0\r\n\r\n".utf8), limits: limits)
            #expect(outcome.messages == 1 && outcome.isIdle, "\(name)")
        }
    }
}
