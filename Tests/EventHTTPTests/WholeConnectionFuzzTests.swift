import Foundation
import TestSupport
import Testing

@testable import EventHTTP

/// Whole connections, randomized: random request streams (`RequestStreams`: every kind of request
/// the wire handles, pipelined, now and then one it refuses) sent to a real server over a socket,
/// once whole and then cut at random places with pauses between the pieces, through small receive
/// buffers and a reader that stops reading now and then. Every way must read the same answers (but
/// for `Date` and `100 Continue`, `WireOutcome.normalized`), every connection must end with the
/// server's close (no reset, no time-out), and no connection may have buffered more input or output
/// than its bounds. The seed is printed; `TODO_TEST_SEED` repeats it (`TODO_FUZZ_STREAMS` sets how
/// many streams, `TODO_FUZZ_ONLY` sends only the one of that index). `Fuzz/Sources/ConnectionFuzzer`
/// runs the same under libFuzzer.
@Suite("EventHTTP: whole connections, cut and stalled at random, answer as when fed whole")
struct WholeConnectionFuzzTests {
    @Test("random pipelined streams get the same answers whole, cut at random places and read with stalls; input and output stay bounded")
    func randomStreams() throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["TODO_TEST_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        let streams = environment["TODO_FUZZ_STREAMS"].flatMap(Int.init) ?? 24
        // To repeat one stream of a seed's run: the others are generated (and their scripts drawn) but not sent.
        let only = environment["TODO_FUZZ_ONLY"].flatMap(Int.init)
        print("WholeConnectionFuzzTests.randomStreams seed \(seed) (TODO_TEST_SEED repeats it)")
        var random = WireRandom(seed: seed)
        let handler = EchoHandler()
        let configuration = RequestStreams.configuration
        let server = HTTPServer(configuration: configuration, handler: handler)
        let port = try server.start()
        defer {
            server.shutdown(gracePeriodSeconds: 0)
            server.waitUntilStopped()
        }
        var exchanges = 0
        var answerBytes = 0
        var slowest = Duration.zero
        for index in 0..<streams {
            let stream = RequestStreams.stream(using: &random)
            if let only, only != index {
                for _ in 0..<3 { _ = WireScript.random(length: stream.count, using: &random) }
                continue
            }
            let whole = WireExchange.run(port: port, stream: stream, script: .whole)
            #expect(whole.failure == nil && !whole.reset && !whole.timedOut, "seed \(seed), stream \(index): \(whole)")
            #expect(!whole.bytes.isEmpty, "seed \(seed), stream \(index): no answer at all")
            let expected = whole.normalized
            answerBytes += expected.count
            for variant in 0..<3 {
                let script = WireScript.random(length: stream.count, using: &random)
                let started = ContinuousClock.now
                let cut = WireExchange.run(port: port, stream: stream, script: script)
                slowest = max(slowest, ContinuousClock.now - started)
                exchanges += 1
                #expect(cut.failure == nil && !cut.reset && !cut.timedOut, "seed \(seed), stream \(index), variant \(variant): \(script)")
                if cut.normalized != expected {
                    let sent = String(decoding: EchoHandler.escaped(String(decoding: stream, as: UTF8.self)), as: UTF8.self)
                    let message =
                        "seed \(seed), stream \(index), variant \(variant) (\(script)): \(Self.difference(expected, cut.normalized))\nstream: \(sent)"
                    Issue.record(Comment(rawValue: message))
                }
            }
        }
        let statistics = server.wireStatistics
        let largestAnswer = handler.largestAnswer.load(ordering: .relaxed)
        print(
            "WholeConnectionFuzzTests.randomStreams: \(streams) streams, \(exchanges) cut exchanges (the slowest \(slowest)), "
                + "\(answerBytes) answer bytes each way; largest input \(statistics.largestInputBytes) B, largest output \(statistics.largestOutputBytes) B, largest answer \(largestAnswer) B"
        )
        #expect(statistics.largestInputBytes <= RequestStreams.inputBound(configuration), "\(statistics)")
        #expect(statistics.largestOutputBytes <= RequestStreams.outputBound(configuration, largestAnswer: largestAnswer), "\(statistics)")
        #expect(eventually { server.openConnections == 0 && server.requestsInFlight == 0 })
    }

    @Test(
        "replays a ConnectionFuzzer input (TODO_FUZZ_REPLAY=path): the stream sent whole and as its seed says, timed",
        .enabled(if: ProcessInfo.processInfo.environment["TODO_FUZZ_REPLAY"] != nil))
    func replay() throws {
        let path = try #require(ProcessInfo.processInfo.environment["TODO_FUZZ_REPLAY"])
        let input = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(input.count > 8)
        let seed = input.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let stream = Array(input.dropFirst(8))
        var random = WireRandom(seed: seed)
        let script = WireScript.random(length: stream.count, using: &random, maxStallMicros: 3000, maxGapMicros: 100)
        let server = HTTPServer(configuration: RequestStreams.configuration, handler: EchoHandler())
        let port = try server.start()
        defer {
            server.shutdown(gracePeriodSeconds: 0)
            server.waitUntilStopped()
        }
        for (name, way) in [("whole", WireScript.whole), ("as the seed says", script)] {
            let started = ContinuousClock.now
            let outcome = WireExchange.run(port: port, stream: stream, script: way)
            print(
                "replay \(name) (\(way)): \(outcome.bytes.count) bytes in \(ContinuousClock.now - started), reset \(outcome.reset), timed out \(outcome.timedOut)"
            )
        }
    }

    /// Where two answer streams part, with some context.
    static func difference(_ expected: [UInt8], _ actual: [UInt8]) -> String {
        let common = zip(expected, actual).prefix { $0 == $1 }.count
        func around(_ bytes: [UInt8]) -> String {
            let text = String(decoding: bytes[max(0, common - 80)..<min(bytes.count, common + 120)], as: UTF8.self)
            return text.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
        }
        return
            "answers differ at byte \(common) of \(expected.count) (got \(actual.count)): expected …\(around(expected))…, got …\(around(actual))…"
    }
}
