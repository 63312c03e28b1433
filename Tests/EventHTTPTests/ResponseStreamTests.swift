import EventLoops
import Foundation
import HTTPValues
import Synchronization
import TestSupport
import Testing

@testable import EventHTTP

/// Streams answers by path: `/parts` three parts then the end, `/flood` 64 KiB parts until the
/// output is over its bound, then the rest once it drained, `/hold` a stream left open.
private final class StreamingHandler: HTTPHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [String] = []

    func note(_ event: String) { lock.withLock { seen.append(event) } }
    var events: [String] { lock.withLock { seen } }

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        switch request.path {
        case "/parts":
            guard let stream = responder.startStream(status: 200, headers: ["Content-Type": "text/plain"], onEvent: { self.note("\($0)") })
            else { return }
            let loop = EventLoop.current!
            // Each part in a later turn of the loop, as a feed writes its events.
            stream.write(Array("one,".utf8))
            loop.execute {
                stream.write(Array("two,".utf8))
                loop.execute {
                    stream.write(Array("three".utf8))
                    stream.finish()
                    self.note("finished")
                }
            }
        case "/batch":
            guard let stream = responder.startStream(status: 200, headers: [:], onEvent: { self.note("\($0)") }) else { return }
            let loop = EventLoop.current!
            // Parts queued in one turn go out as one chunk at the flush; a write seals what was
            // queued before it; the end seals the rest.
            let head = stream.pendingBytes
            stream.queue(Array("a".utf8))
            stream.queue(Array("bb".utf8))
            stream.queue(Array("ccc".utf8))
            self.note("pending \(stream.pendingBytes - head)")
            stream.flush()
            loop.execute {
                stream.queue(Array("dddd".utf8))
                stream.write(Array("e".utf8))
                stream.queue(Array("ffffffffffffffff".utf8))
                stream.finish()
            }
        case "/flood":
            var stream: HTTPResponseStream?
            let part = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
            var written = 0
            func writeUntilOverBound() {
                while let stream, written < 64 {
                    written += 1
                    if stream.write(part) == .overBound {
                        note("overBound after \(written)")
                        return
                    }
                }
                stream?.finish()
                note("finished after \(written)")
            }
            stream = responder.startStream(status: 200, headers: [:]) { event in
                self.note("\(event)")
                if event == .drained { writeUntilOverBound() }
            }
            writeUntilOverBound()
        case "/end-on-drained":
            // One part over the bound, and the end once it has drained: for an HTTP/1.0 client the
            // end adds no bytes (the close ends the body).
            var stream: HTTPResponseStream?
            stream = responder.startStream(status: 200, headers: [:]) { event in
                self.note("\(event)")
                if event == .drained { stream?.finish() }
            }
            if stream?.write([UInt8](repeating: UInt8(ascii: "y"), count: 256 << 10)) == .overBound { note("overBound") }
        case "/nocontent":
            let stream = responder.startStream(status: 204, headers: [:]) { self.note("\($0)") }
            if stream?.write(Array("x".utf8)) == .closed { note("write after the end: closed") }
            stream?.finish()
        case "/answer-twice":
            // A handler that answers a request whose stream it started: the answer is refused,
            // the stream goes on; once the stream is finished, a stream or an answer is refused too.
            guard let stream = responder.startStream(status: 200, headers: [:], onEvent: { self.note("\($0)") }) else { return }
            stream.write(Array("first".utf8))
            note("send while streaming: \(responder.send(HTTPResponse(status: 500, body: Array("oops".utf8))))")
            stream.write(Array("second".utf8))
            stream.finish()
            note("send after the end: \(responder.send(HTTPResponse(status: 500, body: Array("late".utf8))))")
            note("stream after the end: \(responder.startStream(status: 200, headers: [:], onEvent: { _ in }) == nil ? "nil" : "started")")
        case "/hold":
            let stream = responder.startStream(status: 200, headers: [:]) { self.note("\($0)") }
            stream?.write(Array("held".utf8))
        case "/cut-off":
            // 64 KiB parts, queued, to a stream cut off at 256 KiB unsent: each written as it
            // comes until the connection cuts the stream off (or 64 went out).
            let stream = responder.startStream(status: 200, headers: [:], backPressure: HTTPStreamBackPressure(cutOffAt: 256 << 10)) {
                self.note("\($0)")
            }
            let part = [UInt8](repeating: UInt8(ascii: "z"), count: 64 << 10)
            for written in 1...64 {
                let answer = stream?.write(part)
                guard answer == .accepted else { return self.note("\(answer.map { "\($0)" } ?? "nil") after \(written)") }
            }
            note("all written")
        default:
            responder.send(HTTPResponse(status: 200, body: Array("plain".utf8)))
        }
    }
}

@Suite("EventHTTP: answers streamed over time, with back-pressure")
struct ResponseStreamTests {
    /// Runs `body` with a client (receiving into `receiveBufferBytes` when given) that has sent
    /// `request` to a server of `StreamingHandler`s with one loop; stops the server after it.
    private func exchange(
        _ request: String, maxOutputBytes: Int = 1 << 20, timeoutSeconds: Double = 30, receiveBufferBytes: Int32? = nil,
        _ body: (TestHTTPClient, StreamingHandler) throws -> Void
    ) throws {
        let handler = StreamingHandler()
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(
                host: "127.0.0.1", port: 0, loopCount: 1, timeoutSeconds: timeoutSeconds, maxOutputBytes: maxOutputBytes),
            handler: handler)
        let port = try server.start()
        defer {
            server.shutdown(gracePeriodSeconds: 0)
            server.waitUntilStopped()
        }
        let client = try TestHTTPClient(port: port, receiveBufferBytes: receiveBufferBytes, recordsResponses: false)
        try client.send(request)
        try body(client, handler)
    }

    @Test("parts written in later turns arrive as chunks, in order, then the end; the connection serves the next request")
    func chunkedParts() throws {
        try exchange("GET /parts HTTP/1.1\r\nHost: h\r\n\r\n") { client, handler in
            let streamed = try client.readResponse()
            #expect(streamed.status == 200)
            #expect(streamed.header("Transfer-Encoding") == "chunked")
            #expect(streamed.header("Content-Length") == nil)
            #expect(streamed.text == "one,two,three")
            let next = try client.request("GET", "/next")
            #expect(next.text == "plain")
            #expect(handler.events == ["finished"])
        }
    }

    @Test("the exact chunked bytes on the wire")
    func chunkedBytes() throws {
        try exchange("GET /parts HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n") { client, _ in
            let raw = String(decoding: client.readToEnd(), as: UTF8.self)
            let body = raw.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
            #expect(raw.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(raw.contains("\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"))
            #expect(body == "4\r\none,\r\n4\r\ntwo,\r\n5\r\nthree\r\n0\r\n\r\n")
        }
    }

    @Test(
        "an answer sent for a request whose stream is in progress or finished is refused; the stream's bytes alone go out, then the next request's"
    )
    func answerAfterStreamStartedIsRefused() throws {
        try exchange("GET /answer-twice HTTP/1.1\r\nHost: h\r\n\r\nGET /next HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n") {
            client, handler in
            let raw = String(decoding: client.readToEnd(), as: UTF8.self)
            let answers = raw.components(separatedBy: "HTTP/1.1 ")
            #expect(answers.count == 3, "two answers: \(raw)")
            #expect(answers.dropFirst().first?.hasSuffix("\r\n\r\n5\r\nfirst\r\n6\r\nsecond\r\n0\r\n\r\n") == true)
            #expect(answers.last?.hasPrefix("200 OK\r\n") == true)
            #expect(answers.last?.hasSuffix("\r\n\r\nplain") == true)
            #expect(!raw.contains("oops") && !raw.contains("late") && !raw.contains("500"))
            #expect(
                handler.events == [
                    "send while streaming: alreadyAnswered", "send after the end: alreadyAnswered", "stream after the end: nil",
                ])
        }
    }

    @Test("parts queued between flushes go out as one chunk; a write or the end frames what was queued before it")
    func queuedPartsAreOneChunk() throws {
        try exchange("GET /batch HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n") { client, handler in
            let raw = String(decoding: client.readToEnd(), as: UTF8.self)
            let body = raw.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
            #expect(body == "6\r\nabbccc\r\n4\r\ndddd\r\n1\r\ne\r\n10\r\nffffffffffffffff\r\n0\r\n\r\n")
            #expect(handler.events.contains("pending 6"), "queued parts count as pending before they are framed")
        }
    }

    @Test("queued parts to an HTTP/1.0 client are the body as they are")
    func queuedPartsHTTP10() throws {
        try exchange("GET /batch HTTP/1.0\r\n\r\n") { client, _ in
            let raw = String(decoding: client.readToEnd(), as: UTF8.self)
            #expect(raw.hasSuffix("\r\nConnection: close\r\n\r\nabbcccddddeffffffffffffffff"))
        }
    }

    @Test("an HTTP/1.0 client gets the body delimited by the close")
    func http10CloseDelimited() throws {
        try exchange("GET /parts HTTP/1.0\r\n\r\n") { client, _ in
            let raw = String(decoding: client.readToEnd(), as: UTF8.self)
            #expect(raw.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(!raw.contains("Transfer-Encoding"))
            #expect(raw.hasSuffix("\r\nConnection: close\r\n\r\none,two,three"))
        }
    }

    @Test(
        "a stream that ends on hearing drained, adding no bytes (close-delimited for HTTP/1.0), closes the connection at once, not at the time-out",
        arguments: ["1.0", "1.1"])
    func endOnDrained(version: String) throws {
        try exchange("GET /end-on-drained HTTP/\(version)\r\nHost: h\r\nConnection: close\r\n\r\n", maxOutputBytes: 64 << 10) {
            client, handler in
            let raw = client.readToEnd()
            // Read to the end of the stream, not to the client's receive time-out (the server's is 30 s).
            #expect(client.serverClosed(), "the server has not closed the connection")
            let text = String(decoding: raw, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(raw.filter { $0 == UInt8(ascii: "y") }.count == 256 << 10)
            #expect(handler.events == ["overBound", "drained"])
        }
    }

    @Test("a client that does not read: writes report the bound, the output stays near it; once it reads, drained, and the rest arrives")
    func backPressure() throws {
        try exchange("GET /flood HTTP/1.1\r\nHost: h\r\n\r\n", maxOutputBytes: 256 << 10, receiveBufferBytes: 4096) { client, handler in
            #expect(eventually { handler.events.first?.hasPrefix("overBound after") == true }, "\(handler.events)")
            let first = handler.events.first ?? ""
            let parts = Int(first.split(separator: " ").last ?? "") ?? 0
            // The kernel's buffers take some parts, the output up to the bound a few more: never all 64.
            #expect(parts > 0 && parts < 64, "\(first)")
            let response: HTTPResponseSnapshot
            do { response = try client.readResponse() } catch {
                Issue.record("\(error); the handler saw \(handler.events)")
                return
            }
            #expect(response.body.count == 64 << 16)
            #expect(handler.events.contains("drained"))
            #expect(handler.events.last == "finished after 64")
        }
    }

    @Test(
        "a stream cut off at its mark: the write that reached it says cutOff, the connection closes without the body's end, no closed event"
    )
    func cutOffAtTheStreamsMark() throws {
        try exchange("GET /cut-off HTTP/1.1\r\nHost: h\r\n\r\n", maxOutputBytes: 4 << 20, receiveBufferBytes: 4096) { client, handler in
            #expect(eventually { handler.events.first?.hasPrefix("cutOff after") == true }, "\(handler.events)")
            let raw = client.readToEnd()
            #expect(client.serverClosed())
            #expect(!String(decoding: raw.suffix(5), as: UTF8.self).hasSuffix("0\r\n\r\n"), "no last chunk")
            #expect(handler.events.count == 1, "no closed event besides the answer: \(handler.events)")
        }
    }

    @Test("a client gone (its connection reset) ends the stream: its handler hears closed")
    func clientLeaves() throws {
        try exchange("GET /hold HTTP/1.1\r\nHost: h\r\n\r\n") { client, handler in
            _ = try client.readHead()
            client.reset()
            #expect(eventually { handler.events == ["closed"] }, "\(handler.events)")
        }
    }

    @Test("a client that ended its side of the stream still gets the whole stream")
    func halfClosedClientStillReads() throws {
        try exchange("GET /parts HTTP/1.1\r\nHost: h\r\n\r\n") { client, handler in
            client.endSending()
            let streamed = try client.readResponse()
            #expect(streamed.text == "one,two,three")
            #expect(client.serverClosed())
            // Noted on the loop after `finish()`, which may close the connection first; the end
            // of the client's side is told when it was read before the stream finished.
            #expect(eventually { handler.events.last == "finished" }, "\(handler.events)")
            #expect([["finished"], ["clientEnded", "finished"]].contains(handler.events), "\(handler.events)")
        }
    }

    @Test("a client that ends its side while its stream runs: its handler hears clientEnded once, and the stream goes on")
    func clientEndedIsTold() throws {
        try exchange("GET /hold HTTP/1.1\r\nHost: h\r\n\r\n") { client, handler in
            _ = try client.readHead()
            #expect(try client.readChunk() == Array("held".utf8))
            client.endSending()
            #expect(eventually { handler.events == ["clientEnded"] }, "\(handler.events)")
            // Still open: the stream's writer decides (this one holds it), not the connection.
            #expect(!client.hasInput())
            #expect(handler.events == ["clientEnded"])
        }
    }

    @Test("a client whose end arrives with its request: the stream hears clientEnded once it has started")
    func clientEndedBeforeTheStream() throws {
        try exchange("GET /hold HTTP/1.1\r\nHost: h\r\n\r\n") { client, handler in
            client.endSending()
            #expect(eventually { handler.events == ["clientEnded"] }, "\(handler.events)")
            _ = try client.readHead()
            #expect(try client.readChunk() == Array("held".utf8))
        }
    }

    @Test("a streamed 204 has no body and no chunks; the next request on the connection is read right", arguments: ["/nocontent", "/head"])
    func bodilessStream(path: String) throws {
        let method = path == "/head" ? "HEAD" : "GET"
        let requests = "\(method) \(path == "/head" ? "/parts" : path) HTTP/1.1\r\nHost: h\r\n\r\nGET /next HTTP/1.1\r\nHost: h\r\n\r\n"
        try exchange(requests) { client, handler in
            let first = try client.readResponse(method: method)
            #expect(first.status == (path == "/head" ? 200 : 204))
            #expect(first.body.isEmpty)
            #expect(try client.readResponse().text == "plain")
            #expect(handler.events.contains("write after the end: closed") || path == "/head")
        }
    }

    @Test("a stream with no writes is cut at the time-out like any idle connection; its handler hears closed")
    func idleStreamTimesOut() throws {
        try exchange("GET /hold HTTP/1.1\r\nHost: h\r\n\r\n", timeoutSeconds: 0.2) { client, handler in
            #expect(eventually { handler.events == ["closed"] }, "\(handler.events)")
            // Cut, not finished: the part written, and no last chunk.
            #expect(String(decoding: client.readToEnd(), as: UTF8.self).hasSuffix("\r\n\r\n4\r\nheld\r\n"))
        }
    }
}
