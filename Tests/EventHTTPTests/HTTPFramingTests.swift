import TestSupport
import Testing

@testable import EventHTTP

/// The strict framing without sockets: bytes in, events out.
@Suite("HTTPFraming: RFC 9112 framing of a connection's byte stream")
struct HTTPFramingTests {
    static let limits = HTTPFraming.Limits(maxHeadBytes: 1024, maxBodyBytes: 100, maxChunkLineBytes: 64)

    /// Feeds `bytes` in pieces of `pieces` bytes (all at once when nil); returns the summed events.
    private func frame(_ bytes: [UInt8], pieces: Int? = nil, limits: HTTPFraming.Limits = limits) -> (FramingEvents, HTTPFraming) {
        var framing = HTTPFraming(limits: limits)
        var total = FramingEvents()
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + (pieces ?? bytes.count))
            var events = FramingEvents()
            bytes[start..<end].withUnsafeBytes { framing.consume($0, into: &events) }
            total.append(events)
            start = end
        }
        return (total, framing)
    }

    private func frame(_ text: String, pieces: Int? = nil) -> (FramingEvents, HTTPFraming) {
        frame(Array(text.utf8), pieces: pieces)
    }

    @Test("pipelined requests with Content-Length and chunked bodies: every head and message found, nothing refused")
    func validStream() {
        let stream =
            "GET /todos HTTP/1.1\r\nHost: h\r\n\r\n"
            + "POST /todos HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nGET /"
            + "PUT /todos/1 HTTP/1.1\r\nhost: h\r\ntransfer-encoding: Chunked\r\n\r\n3\r\nabc\r\nA\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\n"
            + "GET / HTTP/1.0\n\n"
        for pieces in [nil, 1, 2, 7] {
            let (events, framing) = frame(stream, pieces: pieces)
            #expect(events.refusal == nil, "pieces \(String(describing: pieces))")
            #expect(events.headsCompleted == 4)
            #expect(events.messagesCompleted == 4)
            #expect(events.removals.isEmpty)
            #expect(framing.isIdle)
            #expect(framing.position == stream.utf8.count)
        }
    }

    @Test("a head is complete only at its empty line; a message only once its body has arrived")
    func partialMessages() {
        let (head, _) = frame("POST /todos HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r")
        #expect(head.headsCompleted == 0)
        let (body, framing) = frame("POST /todos HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nabcd")
        #expect(body.headsCompleted == 1)
        #expect(body.messagesCompleted == 0)
        #expect(!framing.isIdle)
    }

    static let get = "GET /todos HTTP/1.1\r\nHost: h\r\n"
    static let post = "POST /todos HTTP/1.1\r\nHost: h\r\n"
    static let chunked = post + "Transfer-Encoding: chunked\r\n\r\n"

    /// Streams the framing refuses, by where the refusal cuts them: evhttp has read `read` (the
    /// cut is at its end), and each of `rests` starts with the line it has not read.
    static let refusals: [(read: String, status: Int, rests: [String])] = [
        (
            get, 400,
            [
                "X Y: z\r\n\r\n", "X@Y: z\r\n\r\n", ": z\r\n\r\n", "X: a\u{0}b\r\n\r\n", "X: a\u{7F}b\r\n\r\n", "X: a\rb\r\n\r\n",
                "no colon\r\n\r\n",
            ]
        ),
        (get + "X: a\r\n", 400, [" folded\r\n\r\n"]),
        (get + "\r\nGET / HTTP/1.1\r\n", 400, ["X: \u{0}\r\n\r\n"]),
        (get, 431, ["X: " + String(repeating: "a", count: 1100) + "\r\n\r\n"]),
        ("GET /todos HTTP/1.1\r\n", 400, ["\r\n"]),
        (
            post, 400,
            [
                "Content-Length : 44\r\n\r\n", "Transfer-Encoding\t: chunked\r\n\r\n", "Content-Length: 99999999999999999999\r\n\r\n",
                "Content-Length: +5\r\n\r\n", "Content-Length: -1\r\n\r\n", "Content-Length: 5 5\r\n\r\n", "Content-Length:\r\n\r\n",
            ]
        ),
        // Framing headers refused for their values or for appearing together: cut at the end of the head.
        (post + "Content-Length: 5\r\nContent-Length: 5\r\n", 400, ["\r\n"]),
        (post + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", 400, ["\r\n"]),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n", 400, ["\r\n"]),
        (post + "Transfer-Encoding: gzip\r\n", 400, ["\r\n"]),
        (post + "Transfer-Encoding: chunked, gzip\r\n", 400, ["\r\n"]),
        (post + "Transfer-Encoding: chun ked\r\n", 400, ["\r\n"]),
        (post + "Transfer-Encoding:\r\n", 400, ["\r\n"]),
        (post + "Transfer-Encoding: gzip, chunked\r\n", 501, ["\r\n"]),
        (post + "Content-Length: 101\r\n", 413, ["\r\n"]),
        (
            chunked, 400,
            ["0x11\r\n", "+11\r\n", " 11\r\n", "11 junk\r\n", "\r\n", "1;a\u{1}\r\n", "1;" + String(repeating: "a", count: 70)]
        ),
        (chunked, 413, ["65\r\n", "FFFFFFFFFFFFFFFFF\r\n"]),
        (chunked + "50\r\n" + String(repeating: "a", count: 80) + "\r\n", 413, ["15\r\n"]),
        (chunked + "3\r\nabc", 400, ["X\r\n"]),
        (chunked + "0\r\n", 400, ["Bad Trailer: x\r\n\r\n"]),
        // The request line itself.
        (
            "", 400,
            [
                "GET /todos HTTP/-1.1\r\nHost: h\r\n\r\n", "GET /todos HTTP/1.10\r\nHost: h\r\n\r\n",
                "GET /todos http/1.1\r\nHost: h\r\n\r\n",
                "GET /todos\r\n\r\n", "GET  /todos HTTP/1.1\r\n\r\n", "GET /to\u{1}dos HTTP/1.1\r\n\r\n", "\u{16}\u{3}\u{1}\u{2}\u{0}",
            ]
        ),
        ("", 505, ["GET /todos HTTP/2.0\r\nHost: h\r\n\r\n", "GET /todos HTTP/0.9\r\nHost: h\r\n\r\n"]),
    ]

    @Test(
        "each refusal has its status and is cut at the start of the line evhttp has not read",
        arguments: refusals.flatMap { refusal in refusal.rests.map { (refusal.read, $0, refusal.status) } })
    func refusal(read: String, rest: String, status: Int) {
        let stream = read + rest
        for pieces in [nil, 1, 3] {
            let (events, framing) = frame(stream, pieces: pieces)
            #expect(events.refusal?.status == status, "\(stream.debugDescription) pieces \(String(describing: pieces))")
            #expect(events.refusal?.cutOffset == read.utf8.count, "\(stream.debugDescription) pieces \(String(describing: pieces))")
            #expect(framing.isFinished)
        }
    }

    @Test("issue 35: chunk sizes of 2^63 and more are too large, never negative: the chunk's body is never read as a request")
    func chunkSizesThatWrapped() {
        let chunked = "POST /todos HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        let smuggled = "DELETE /todos HTTP/1.1\r\nHost: h\r\n\r\n"
        let bodyLimits = HTTPFraming.Limits(maxHeadBytes: 1024, maxBodyBytes: 1 << 20, maxChunkLineBytes: 1024)
        for size in ["ffffffffffffffff", "8000000000000000", "fffffffffffffff0", "FFFFFFFFFFFFFFFFF", "10000000000000000"] {
            let stream = chunked + size + "\r\n" + smuggled
            for pieces in [nil, 1, 5] {
                var (events, framing) = frame(Array(stream.utf8), pieces: pieces, limits: bodyLimits)
                #expect(events.refusal?.status == 413, "\(size) pieces \(String(describing: pieces))")
                #expect(events.refusal?.cutOffset == chunked.utf8.count, "\(size)")
                #expect(events.headsCompleted == 1, "\(size): only the POST's head")
                #expect(events.messagesCompleted == 0, "\(size)")
                #expect(framing.isFinished)
                // Nothing after the refusal is ever framed, however much comes.
                var more = FramingEvents()
                Array(repeating: UInt8(ascii: "a"), count: 4096).withUnsafeBytes { _ = framing.consume($0, into: &more) }
                #expect(more.headsCompleted == 0 && more.messagesCompleted == 0 && more.bodySpans.isEmpty)
            }
        }
        // 2^63 then 2^63 - 1: the sum may not wrap below the limit either.
        let (sum, _) = frame(
            Array((chunked + "1\r\nx\r\n7fffffffffffffff\r\n").utf8),
            limits: HTTPFraming.Limits(maxHeadBytes: 1024, maxBodyBytes: Int.max, maxChunkLineBytes: 64))
        #expect(sum.refusal?.status == 413)
        // At the largest limit, a chunk of Int.max bytes is a chunk (its data is awaited), one more is too large.
        let largest = HTTPFraming.Limits(maxHeadBytes: 1024, maxBodyBytes: Int.max, maxChunkLineBytes: 64)
        let (atMost, open) = frame(Array((chunked + "7fffffffffffffff\r\n" + smuggled).utf8), limits: largest)
        #expect(atMost.refusal == nil)
        #expect(atMost.messagesCompleted == 0 && !open.isIdle && !open.isFinished)
        let (pastIt, _) = frame(Array((chunked + "8000000000000000\r\n").utf8), limits: largest)
        #expect(pastIt.refusal?.status == 413)
    }

    @Test("issue 35: leading zeros are digits, never value: an 18-digit chunk size of 17 and a 25-digit Content-Length of 5")
    func leadingZeros() {
        let chunked = "POST /todos HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        let body = String(repeating: "x", count: 17)
        for pieces in [nil, 1, 4] {
            let (events, framing) = frame(chunked + "000000000000000011\r\n" + body + "\r\n0\r\n\r\n", pieces: pieces)
            #expect(events.refusal == nil)
            #expect(events.messagesCompleted == 1)
            #expect(framing.isIdle)
            let (length, _) = frame(
                "POST /todos HTTP/1.1\r\nHost: h\r\nContent-Length: 0000000000000000000000005\r\n\r\nabcdeGET / HTTP/1.1\r\nHost: h\r\n\r\n",
                pieces: pieces)
            #expect(length.refusal == nil)
            #expect(length.messagesCompleted == 2)
        }
        // The most digits a chunk-size line holds: its limit (64 here), whatever they are.
        let (long, _) = frame(chunked + String(repeating: "0", count: 70) + "1\r\n")
        #expect(long.refusal?.status == 400)
        #expect(long.refusal?.detail.contains("longer than 64 bytes") == true)
    }

    @Test("issue 35: Content-Length up to Int.max is a number (413 past the body limit); past it, too large a number (400)")
    func contentLengthBoundaries() {
        let post = "POST /todos HTTP/1.1\r\nHost: h\r\nContent-Length: "
        let largest = HTTPFraming.Limits(maxHeadBytes: 1024, maxBodyBytes: Int.max, maxChunkLineBytes: 64)
        for (value, status) in [
            ("9223372036854775807", nil), ("09223372036854775807", nil), ("9223372036854775808", 400), ("18446744073709551616", 400),
            ("18446744073709551615", 400),
        ] as [(String, Int?)] {
            for pieces in [nil, 1, 3] {
                var framing = HTTPFraming(limits: largest)
                var events = FramingEvents()
                let bytes = Array((post + value + "\r\n\r\n").utf8)
                var start = 0
                while start < bytes.count {
                    let end = min(bytes.count, start + (pieces ?? bytes.count))
                    bytes[start..<end].withUnsafeBytes { _ = framing.consume($0, into: &events) }
                    start = end
                }
                #expect(events.refusal?.status == status, "\(value) pieces \(String(describing: pieces))")
                #expect(events.headsCompleted == (status == nil ? 1 : 0), "\(value)")
            }
        }
        let (overLimit, _) = frame(post + "101\r\n\r\n")
        #expect(overLimit.refusal?.status == 413)
    }

    @Test("issue 35: a target is a path, *, a CONNECT's authority, or an http(s) URI with a host; others and non-ASCII bytes are 400")
    func targets() {
        func outcome(_ method: String, _ target: [UInt8]) -> (FramingEvents, HTTPFraming) {
            frame(Array("\(method) ".utf8) + target + Array(" HTTP/1.1\r\nHost: h\r\n\r\n".utf8))
        }
        for target in ["ftp://x/healthz", "http:///todos", "http://", "https://?q", "http:/a", "healthz", "hxxp://a/", "http//a/", "h"] {
            let (events, _) = outcome("GET", Array(target.utf8))
            #expect(events.refusal?.status == 400, "\(target)")
            #expect(events.refusal?.detail.contains("a path (/todos) or an http or https URI with a host") == true, "\(target)")
        }
        for target in [[UInt8(ascii: "/"), 0xFF], Array("/todos?q=".utf8) + [0xC3, 0xA9], [UInt8(ascii: "/"), 0x80]] {
            let (events, _) = outcome("GET", target)
            #expect(events.refusal?.status == 400, "\(target)")
            #expect(events.refusal?.detail.contains("not ASCII") == true, "\(target)")
        }
        for (method, target) in [
            ("GET", "/todos"), ("OPTIONS", "*"), ("CONNECT", "example.com:443"), ("GET", "http://a"), ("GET", "HTTPS://a:1/x"),
            ("GET", "http://a?b"),
        ] {
            let (events, _) = outcome(method, Array(target.utf8))
            #expect(events.refusal == nil, "\(method) \(target)")
            #expect(events.headsCompleted == 1, "\(method) \(target)")
        }
    }

    @Test("issue 35: empty lines before a request line begin its head (its time-out runs), though the framing is still idle")
    func emptyLinesBeginAHead() {
        let (none, idle) = frame("")
        #expect(none.removals.isEmpty && idle.isIdle && !idle.headBegun)
        let (lines, framing) = frame("\r\n\r\n")
        #expect(lines.removals == [0..<4])
        #expect(framing.isIdle && framing.headBegun)
        let (whole, after) = frame("\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(whole.messagesCompleted == 1)
        #expect(after.isIdle && !after.headBegun)
    }

    @Test(
        "issue 35 round 3: chunk extensions are read by their grammar; a quoted string not closed on its line is refused, not ended there")
    func chunkExtensionGrammar() {
        let head = "POST /t HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        for accepted in [
            "1;a\r\n", "1;a=b\r\n", "1 ; a = b ; c\r\n", "1;a=\"x y\\\"z;\\\\\"\r\n", "1;a=\"\"\r\n", "1\t;a=b \r\n", "1;a;b=c\r\n",
        ] {
            let (events, framing) = frame(head + accepted + "x\r\n0\r\n\r\n")
            #expect(events.refusal == nil, "\(accepted.debugDescription)")
            #expect(events.messagesCompleted == 1 && framing.isIdle, "\(accepted.debugDescription)")
        }
        let smuggled = "0;a=\"\r\n\r\nDELETE /todos HTTP/1.1\r\nHost: x\r\n\r\n\"\r\n\r\n"
        for refused in [
            "1;a=\"b\r\n", "1;=\r\n", "1;a==b\r\n", "1;a=b c\r\n", "1;@\r\n", "1;a=(x)\r\n", "1;\r\n", "1;a=\r\n", "1;a b\r\n", smuggled,
        ] {
            for pieces in [nil, 1] {
                let (events, _) = frame(head + refused + "x\r\n0\r\n\r\n", pieces: pieces)
                #expect(events.refusal?.status == 400, "\(refused.debugDescription)")
                #expect(events.refusal?.cutOffset == head.utf8.count, "\(refused.debugDescription)")
                #expect(events.messagesCompleted == 0, "\(refused.debugDescription)")
            }
        }
    }

    @Test("chunk extensions and bad whitespace before them: extensions are accepted and marked for removal")
    func chunkExtensions() {
        let head = "POST /t HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        let stream = head + "3;a=b\r\nabc\r\n2 ; q=\"x y\"\r\nde\r\n0;last\r\n\r\n"
        for pieces in [nil, 1, 4] {
            let (events, framing) = frame(stream, pieces: pieces)
            #expect(events.refusal == nil)
            #expect(events.messagesCompleted == 1)
            #expect(framing.isIdle)
            let base = head.utf8.count
            #expect(events.removals == [base + 1..<base + 5, base + 13..<base + 23, base + 30..<base + 35])
        }
    }

    @Test("absolute-form targets are rewritten to origin form; leading empty lines are removed")
    func rewrites() {
        let (absolute, _) = frame("GET http://example.com:8080/todos?x=1 HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(absolute.refusal == nil)
        #expect(absolute.removals == [4..<27])
        let (https, _) = frame("GET HTTPS://a/ HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(https.removals == [4..<13])
        let (noPath, _) = frame("GET http://a HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(noPath.removals.isEmpty)
        let (origin, _) = frame("GET /http://a/ HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(origin.removals.isEmpty)
        let (leading, _) = frame("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(leading.removals == [0..<4])
        #expect(leading.headsCompleted == 1)
    }

    @Test("a body is framed whatever the method (RFC 9112 §6.3): HEAD, TRACE and unknown methods included")
    func bodiesOfEveryMethod() {
        for method in ["HEAD", "TRACE", "BREW", "get"] {
            let head = "\(method) / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n"
            let (events, framing) = frame(head + "abcdeDELETE /todos HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(events.discardFrom == nil, "\(method)")
            #expect(events.headsCompleted == 2, "\(method)")
            #expect(events.messagesCompleted == 2, "\(method)")
            #expect(!framing.isFinished)
        }
        let (get, _) = frame("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nabcde")
        #expect(get.discardFrom == nil)
        #expect(get.messagesCompleted == 1)
    }

    @Test("random splits of random valid and invalid streams give the same events as one piece")
    func splitsAgree() {
        var generator = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 0...UInt64.max, using: &generator)
        print("HTTPFramingTests.splitsAgree seed \(seed)")
        var random = SplitMix64(seed: seed)
        let pieces = [
            "GET /todos HTTP/1.1\r\nHost: h\r\n\r\n", "POST /t HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc",
            "PUT /t HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2;x\r\nab\r\n0\r\n\r\n", "X Y: z\r\n", "\u{0}",
            "Content-Length : 4\r\n", "\r\n", "GET http://h/x HTTP/1.1\r\nHost: h\r\n\r\n",
        ]
        for _ in 0..<300 {
            var stream: [UInt8] = []
            for _ in 0..<Int(random.next() % 6 + 1) { stream += Array(pieces[Int(random.next() % UInt64(pieces.count))].utf8) }
            let (whole, _) = frame(stream)
            let (split, _) = frame(stream, pieces: Int(random.next() % 9 + 1))
            #expect(whole.refusal == split.refusal, "seed \(seed)")
            #expect(whole.headsCompleted == split.headsCompleted, "seed \(seed)")
            #expect(whole.messagesCompleted == split.messagesCompleted, "seed \(seed)")
            #expect(whole.removals == split.removals, "seed \(seed)")
            #expect(whole.discardFrom == split.discardFrom, "seed \(seed)")
        }
    }

    @Test("the budget stops reading at the pipelining depth and the unsent-output limit, and resumes")
    func budget() {
        var budget = ConnectionBudget(maxPipelinedRequests: 2, maxOutputBytes: 1000)
        #expect(budget.allowsReading)
        var events = FramingEvents()
        events.headsCompleted = 2
        events.messagesCompleted = 1
        budget.record(events)
        #expect(budget.allowsReading)
        #expect(budget.awaitsAnswer)
        events.headsCompleted = 0
        budget.record(events)
        #expect(budget.pipelined == 2)
        #expect(!budget.allowsReading)
        budget.recordAnswer()
        #expect(budget.allowsReading)
        budget.outputBytes = 1001
        #expect(!budget.allowsReading)
        budget.outputBytes = 1000
        #expect(budget.allowsReading)
        budget.recordAnswer()
        #expect(!budget.awaitsAnswer)
        budget.finished = true
        #expect(!budget.allowsReading)
    }
}
