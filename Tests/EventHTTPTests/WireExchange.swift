// Whole connections driven over real sockets, for the whole-connection fuzzing: a deterministic
// handler, random request streams, and a client that sends a stream cut at given places with pauses
// and stops reading now and then. Shared, as a symbolic link, by `WholeConnectionFuzzTests` and
// `Fuzz/Sources/ConnectionFuzzer`; it depends on nothing else of either.
import EventLoops
import Glibc
import HTTPValues
import Synchronization

@testable import EventHTTP

/// An answer that is a function of the request alone, so that a stream gets the same answer bytes
/// (but for `Date`) however it is cut and read. By path:
/// - `/stream/N`: a streamed answer of N parts (chunked; ended by the close for HTTP/1.0), written
///   as the output allows (`.overBound` waits for `.drained`);
/// - `/big/N`: N bytes;
/// - `/later…`: the echo, answered in a later turn of the loop;
/// - `/close…`: the echo with `Connection: close`;
/// - `/status/204`, `/status/304`: no body;
/// - anything else: the echo — method, target, version, header fields and the body's length and
///   checksum, bytes outside printable ASCII escaped (so that no answer body holds a CR).
final class EchoHandler: HTTPHandler, Sendable {
    /// The largest answer queued at once: a whole answer, or a stream's head or one part.
    let largestAnswer = Atomic<Int>(0)

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        let path = request.path
        if path.hasPrefix("/stream/") {
            return stream(parts: Self.number(after: "/stream/", in: path, max: 64), request: request, responder: responder)
        }
        if path.hasPrefix("/later") {
            let box = ResponderBox(responder: responder)
            let answer = echo(request)
            EventLoop.current?.execute { [self] in send(answer, box.responder) }
            return
        }
        if path.hasPrefix("/big/") {
            let count = Self.number(after: "/big/", in: path, max: 100_000)
            return send(
                HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Self.pattern(count, seed: count)), responder)
        }
        if path == "/status/204" || path == "/status/304" {
            return send(HTTPResponse(status: path == "/status/204" ? 204 : 304, headers: ["X-Path": path]), responder)
        }
        var answer = echo(request)
        if path.hasPrefix("/close") { answer.headers.add("Connection", "close") }
        send(answer, responder)
    }

    private func send(_ response: HTTPResponse, _ responder: HTTPResponder) {
        note(response.body.count + 256)
        responder.send(response)
    }

    private func note(_ bytes: Int) {
        _ = largestAnswer.max(bytes, ordering: .relaxed)
    }

    private func echo(_ request: HTTPRequest) -> HTTPResponse {
        var text = "\(request.method.rawValue) \(request.uri) HTTP/\(request.version.major).\(request.version.minor)\n"
        for field in request.headers { text += "\(field.name.lowercased()): \(field.value)\n" }
        let sum = request.body.reduce(UInt32(0)) { ($0 &* 31) &+ UInt32($1) }
        text += "body \(request.body.count) \(sum)\n"
        return HTTPResponse(status: 200, headers: ["Content-Type": "text/plain", "X-Echo": "1"], body: Self.escaped(text))
    }

    /// A streamed answer whose parts are written while the output takes them; the rest after `.drained`.
    private func stream(parts: Int, request: HTTPRequest, responder: HTTPResponder) {
        let state = StreamProgress()
        note(512)
        let stream = responder.startStream(status: 200, headers: ["Content-Type": "text/plain", "X-Parts": String(parts)]) { event in
            switch event {
            case .drained: state.resume()
            case .closed: state.stop()
            case .clientEnded: break
            }
        }
        guard let stream else { return }
        state.start(stream, parts: parts, note: { [self] in note($0 + 64) })
    }

    /// The decimal number after `prefix` in `path`, at most `max`.
    static func number(after prefix: String, in path: String, max: Int) -> Int {
        min(max, Int(path.dropFirst(prefix.count).prefix { $0.isNumber }.prefix(9)) ?? 0)
    }

    /// `count` bytes of lowercase letters that depend on `seed`.
    static func pattern(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(ascii: "a") + UInt8(($0 &* 7 &+ seed) % 26) }
    }

    /// `text` with bytes outside printable ASCII (and `%`) as `%XX`; newlines kept.
    static func escaped(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        for byte in text.utf8 {
            if byte == 0x0A || (byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "%")) {
                out.append(byte)
            } else {
                let digits = Array("0123456789ABCDEF".utf8)
                out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 15)]]
            }
        }
        return out
    }
}

/// A responder carried into work queued on its own loop.
private struct ResponderBox: @unchecked Sendable {
    let responder: HTTPResponder
}

/// The parts of one streamed answer still to write (on the loop's thread only).
private final class StreamProgress: @unchecked Sendable {
    private var stream: HTTPResponseStream?
    private var next = 0
    private var parts = 0
    private var note: (Int) -> Void = { _ in }
    private var writing = false

    func start(_ stream: HTTPResponseStream, parts: Int, note: @escaping (Int) -> Void) {
        self.stream = stream
        self.parts = parts
        self.note = note
        resume()
    }

    func stop() { stream = nil }

    /// Writes parts until the output is over its bound (the rest waits for `.drained`) or all are
    /// written. A `.drained` heard inside a write (the write flushed the output) changes nothing:
    /// the loop here goes on.
    func resume() {
        guard let stream, !writing else { return }
        writing = true
        defer { writing = false }
        while next < parts {
            let size = (next &* 997 &+ parts &* 31) % 3000 + 1
            let part = EchoHandler.pattern(size, seed: next)
            next += 1
            note(size)
            switch stream.write(part) {
            case .accepted: continue
            case .overBound: return
            case .closed, .cutOff:
                self.stream = nil
                return
            }
        }
        stream.finish()
        self.stream = nil
    }
}

/// A deterministic generator (SplitMix64).
struct WireRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `range`.
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    /// True `percent` times in a hundred.
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
}

/// How a stream is sent and its answers read: cut at `cuts` (offsets into the stream), a pause of
/// `pieceGapMicros` after each piece, and a reader that stops for `stalls[i].micros` once it has
/// read `stalls[i].afterBytes`, through a receive buffer of `receiveBufferBytes` (nil: the
/// system's).
struct WireScript: CustomStringConvertible {
    var cuts: [Int] = []
    var pieceGapMicros = 0
    var stalls: [(afterBytes: Int, micros: Int)] = []
    var receiveBufferBytes: Int32?

    /// The stream sent in one piece and read as it comes.
    static let whole = WireScript()

    /// Random cuts, pauses and stalls for a stream of `length` bytes; stalls and gaps at most
    /// `maxStallMicros` and `maxGapMicros`.
    static func random(length: Int, using random: inout WireRandom, maxStallMicros: Int = 20_000, maxGapMicros: Int = 300) -> WireScript {
        var script = WireScript()
        if length > 1 {
            let count = random.chance(20) ? min(length - 1, 64) : random.int(0...min(16, length - 1))
            script.cuts = Array(Set((0..<count).map { _ in random.int(1...(length - 1)) })).sorted()
        }
        script.pieceGapMicros = random.int(0...maxGapMicros)
        script.stalls = (0..<random.int(0...4)).map { _ in (random.int(0...20_000), random.int(0...maxStallMicros)) }.sorted { $0.0 < $1.0 }
        // Not under 4 KiB: with a receive buffer of about 1.4 KiB, Linux never advertises a window
        // again once it is full (window scaling rounds it down to zero), and the sender's kernel
        // probes a zero window forever — seen as an answer that never arrives, whatever the server does.
        if random.chance(50) { script.receiveBufferBytes = Int32(random.int(4096...16384)) }
        return script
    }

    var description: String {
        "cuts \(cuts), gap \(pieceGapMicros) µs, stalls \(stalls.map { "\($0.micros) µs after \($0.afterBytes) B" }), "
            + "receive buffer \(receiveBufferBytes.map(String.init) ?? "default")"
    }
}

/// What a client read on one connection until the server closed it.
struct WireOutcome {
    var bytes: [UInt8] = []
    /// The connection was reset (answers may be lost), or did not end within the deadline.
    var reset = false
    var timedOut = false
    var failure: String?

    /// The answers with what legitimately differs between runs taken out: each `Date` value, and
    /// each `100 Continue` (sent only when none of the body came with its head).
    var normalized: [UInt8] {
        let interim = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
        let dateField = Array("\r\nDate: ".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "H"), bytes[index...].starts(with: interim) {
                index += interim.count
                continue
            }
            if bytes[index] == 13, bytes[index...].starts(with: dateField), index + dateField.count + 29 <= bytes.count {
                out += dateField + Array("-".utf8)
                index += dateField.count + 29
                continue
            }
            out.append(bytes[index])
            index += 1
        }
        return out
    }
}

enum WireExchange {
    /// Sends `stream` to 127.0.0.1:`port` as `script` says, ends the client's side, and reads until
    /// the server closes (at most `deadline`: well under the server's time-out, so that a
    /// connection the server closes only at its time-out counts as one that did not end).
    static func run(port: Int, stream: [UInt8], script: WireScript, deadline: Duration = .seconds(10)) -> WireOutcome {
        var outcome = WireOutcome()
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return WireOutcome(failure: "socket: errno \(errno)") }
        defer { close(fd) }
        if var size = script.receiveBufferBytes {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return WireOutcome(failure: "connect: errno \(errno)") }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)

        let ends = script.cuts.filter { $0 > 0 && $0 < stream.count } + [stream.count]
        var piece = 0
        var sent = 0
        var ended = false
        var nextPiece = ContinuousClock.now
        var stall = 0
        var stalledUntil: ContinuousClock.Instant?
        let giveUp = ContinuousClock.now + deadline
        var scratch = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let now = ContinuousClock.now
            if now >= giveUp {
                outcome.timedOut = true
                return outcome
            }
            if let until = stalledUntil, now >= until { stalledUntil = nil }
            if stalledUntil == nil, stall < script.stalls.count, outcome.bytes.count >= script.stalls[stall].afterBytes {
                stalledUntil = now + .microseconds(script.stalls[stall].micros)
                stall += 1
            }
            if sent == stream.count, !ended {
                shutdown(fd, Int32(SHUT_WR))
                ended = true
            }
            let wantsWrite = sent < stream.count && now >= nextPiece
            let wantsRead = stalledUntil == nil
            var wake = giveUp
            if sent < stream.count, nextPiece > now { wake = min(wake, nextPiece) }
            if let until = stalledUntil { wake = min(wake, until) }
            guard wantsWrite || wantsRead else {
                sleep(until: min(wake, now + .milliseconds(50)))
                continue
            }
            var ready = pollfd(fd: fd, events: Int16((wantsWrite ? POLLOUT : 0) | (wantsRead ? POLLIN : 0)), revents: 0)
            let waitMicros = max(0, min(50_000, microseconds(from: now, to: wake)))
            // Whole milliseconds: a shorter wait (a pause between pieces) polls again at once.
            guard poll(&ready, 1, Int32(waitMicros / 1000)) >= 0 || errno == EINTR else {
                outcome.failure = "poll: errno \(errno)"
                return outcome
            }
            if !wantsRead, ready.revents & Int16(POLLOUT) == 0, ready.revents & Int16(POLLHUP | POLLERR) != 0 {
                // Closed while the reader stalls: nothing to do until the stall ends.
                sleep(until: min(wake, now + .milliseconds(5)))
            }
            if wantsWrite, ready.revents & Int16(POLLOUT | POLLERR | POLLHUP) != 0 {
                let end = ends[piece]
                let count = stream[sent..<end].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count > 0 {
                    sent += count
                    if sent == end {
                        piece += 1
                        nextPiece = ContinuousClock.now + .microseconds(script.pieceGapMicros)
                    }
                } else if count < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR {
                    // The server closed (after a refusal it stops reading): the rest is not sent.
                    sent = stream.count
                }
            }
            if wantsRead, ready.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                while true {
                    let count = recv(fd, &scratch, scratch.count, 0)
                    if count > 0 {
                        outcome.bytes += scratch[0..<count]
                        continue
                    }
                    if count == 0 { return outcome }
                    if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { break }
                    outcome.reset = true
                    return outcome
                }
            }
        }
    }

    private static func microseconds(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Int {
        let (seconds, attoseconds) = (end - start).components
        return Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000)
    }

    private static func sleep(until instant: ContinuousClock.Instant) {
        let micros = microseconds(from: .now, to: instant)
        if micros > 0 { usleep(UInt32(micros)) }
    }
}

/// Random request streams: valid requests of every kind the wire handles (keep-alive, HEAD,
/// `Content-Length` and chunked bodies with extensions and trailers, `Expect: 100-continue`,
/// HTTP/1.0 with and without keep-alive, `Connection: close`, streamed, large, late and closing
/// answers, bodiless statuses, empty lines before a request line, absolute-form targets), pipelined
/// one after another, and now and then one the framing refuses (which ends the stream).
enum RequestStreams {
    /// Limits of the server the streams are written for. Its time-out (30 s) is longer than any
    /// exchange's deadline: every connection must end before it, by the server's own decision.
    static let configuration = HTTPServerConfiguration(
        host: "127.0.0.1", port: 0, loopCount: 1, maxHeaderBytes: 4096, timeoutSeconds: 30, maxBodyBytes: 16 << 10,
        maxChunkLineBytes: 256, maxPipelinedRequests: 4, maxOutputBytes: 16 << 10)

    /// Mostly a few requests; now and then dozens, or a flood of small ones (more than a read holds).
    static func stream(using random: inout WireRandom) -> [UInt8] {
        var stream: [UInt8] = []
        if random.chance(8) {
            for index in 0..<random.int(100...600) { stream += get("/f/\(index)") }
        }
        let count = random.chance(20) ? random.int(10...40) : random.int(1...10)
        for index in 0..<count { stream += request(index, using: &random) }
        return stream
    }

    /// An HTTP/1.1 GET of `target` with a Host header and nothing more.
    static func get(_ target: String) -> [UInt8] {
        Array("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
    }

    static func request(_ index: Int, using random: inout WireRandom) -> [UInt8] {
        let n = random.int(0...9999)
        func body(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) } }
        switch random.int(0...99) {
        case 0..<14:
            return Array("GET /echo/\(n)?a=\(index) HTTP/1.1\r\nHost: h\r\nX-N: \(n)\r\n\r\n".utf8)
        case 14..<20:
            return Array("HEAD /echo/\(n) HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        case 20..<32:
            let payload = body(random.chance(15) ? random.int(4000...(16 << 10)) : random.int(0...600))
            return Array("POST /echo/\(n) HTTP/1.1\r\nHost: h\r\nContent-Length: \(payload.count)\r\n\r\n".utf8) + payload
        case 32..<42:
            var bytes = Array("PUT /echo/\(n) HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
            for _ in 0..<random.int(0...6) {
                let chunk = body(random.int(1...700))
                let extensions = random.chance(30) ? ";x=\(n);y=\"q\"" : ""
                bytes += Array("\(String(chunk.count, radix: 16))\(extensions)\r\n".utf8) + chunk + [13, 10]
            }
            bytes += Array("0\r\n".utf8)
            if random.chance(30) { bytes += Array("X-Trailer: \(n)\r\n".utf8) }
            return bytes + [13, 10]
        case 42..<48:
            let payload = body(random.int(1...2000))
            return Array("POST /echo/e\(n) HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: \(payload.count)\r\n\r\n".utf8)
                + payload
        case 48..<53:
            let keep = random.chance(50) ? "Connection: keep-alive\r\n" : ""
            return Array("GET /echo/old\(n) HTTP/1.0\r\n\(keep)\r\n".utf8)
        case 53..<56:
            return Array("GET /echo/last\(n) HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n".utf8)
        case 56..<64:
            let method = random.chance(15) ? "HEAD" : "GET"
            let version = random.chance(15) ? "1.0" : "1.1"
            return Array("\(method) /stream/\(random.int(0...40)) HTTP/\(version)\r\nHost: h\r\n\r\n".utf8)
        case 64..<70: return get("/big/\(random.int(0...60_000))")
        case 70..<77: return get("/later/\(n)")
        case 77..<79: return get("/close/\(n)")
        case 79..<82: return get("/status/\(random.chance(50) ? 204 : 304)")
        case 82..<85:
            return Array("\r\nGET http://h:8080/echo/abs\(n)?q HTTP/1.1\r\nHost: h:8080\r\n\r\n".utf8)
        case 85..<88:
            return Array(
                "DELETE /echo/\(n) HTTP/1.1\r\nHost: h\r\nX-Long: \(String(repeating: "v", count: random.int(0...3000)))\r\n\r\n".utf8)
        default:
            return refused(n, using: &random)
        }
    }

    /// A request the framing refuses: the stream ends with its refusal.
    static func refused(_ n: Int, using random: inout WireRandom) -> [UInt8] {
        switch random.int(0...8) {
        case 0: return Array("GET /x HTTP/1.1\r\nBad Name: \(n)\r\n\r\n".utf8)
        case 1: return Array("GET  /x HTTP/1.1\r\n\r\n".utf8)
        case 2: return Array("POST /x HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n".utf8)
        case 3: return Array("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".utf8)
        case 4: return Array("GET /x HTTP/2.0\r\n\r\n".utf8)
        case 5: return Array("GET /x HTTP/1.1\r\nX: \(String(repeating: "h", count: 5000))\r\n\r\n".utf8)
        case 6: return Array("POST /x HTTP/1.1\r\nContent-Length: 99999999\r\n\r\nabc".utf8)
        case 7: return Array("GET /x HTTP/1.1\r\nX: a\r\n folded\r\n\r\n".utf8)
        default: return (0..<random.int(1...40)).map { _ in UInt8(truncatingIfNeeded: random.next()) } + [13, 10, 13, 10]
        }
    }

    /// What one connection may hold at most with `configuration`: its input, a whole request plus a
    /// read; its output, the bound plus the largest answer queued at once (and a refusal).
    static func inputBound(_ configuration: HTTPServerConfiguration) -> Int {
        configuration.maxHeaderBytes + configuration.maxBodyBytes + WireSettings.readBytes
    }

    static func outputBound(_ configuration: HTTPServerConfiguration, largestAnswer: Int) -> Int {
        configuration.maxOutputBytes + largestAnswer + 1024
    }
}
