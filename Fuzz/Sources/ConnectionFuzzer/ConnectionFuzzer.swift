import Glibc

@testable import EventHTTP

/// Raw bytes → one whole connection to a real server (`HTTPServer` with `EchoHandler`, whose
/// answers are a function of the request alone; `RequestStreams.configuration`'s small limits: 4 KiB
/// heads, 16 KiB bodies, 4 pipelined requests, 16 KiB of output). Bytes 0–7 seed how the stream is
/// sent the second time (`WireScript.random`: cuts, pauses between pieces, reader stalls, a small
/// receive buffer); the rest is the stream, sent once whole and once so.
///
/// Holds for every input: both connections end with the server's close (no reset, no time-out), the
/// answers read are the same but for `Date` and `100 Continue` (`WireOutcome.normalized`), and no
/// connection ever buffered more input than a whole request and a read, or more output than the
/// bound and the largest answer queued at once. The seed inputs in `Fuzz/Corpus/Connection` are
/// generated streams (`CONNECTION_FUZZER_WRITE_SEEDS=DIR`); `WholeConnectionFuzzTests` runs the
/// same check in `swift test` over seeded random streams.
let handler = EchoHandler()
let configuration = RequestStreams.configuration
let server = HTTPServer(configuration: configuration, handler: handler)
let port: Int = {
    do { return try server.start() } catch { fatalError("the server did not start: \(error)") }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 8 else { return 0 }
    var seed: UInt64 = 0
    for index in 0..<8 { seed = seed << 8 | UInt64(data[index]) }
    let stream = Array(UnsafeBufferPointer(start: data + 8, count: size - 8))
    var random = WireRandom(seed: seed)
    let script = WireScript.random(length: stream.count, using: &random, maxStallMicros: 3000, maxGapMicros: 100)
    let whole = WireExchange.run(port: port, stream: stream, script: .whole, deadline: .seconds(4))
    precondition(
        whole.failure == nil && !whole.reset && !whole.timedOut,
        "fed whole: \(whole.failure ?? "") reset \(whole.reset) timed out \(whole.timedOut)")
    let cut = WireExchange.run(port: port, stream: stream, script: script, deadline: .seconds(4))
    precondition(
        cut.failure == nil && !cut.reset && !cut.timedOut, "\(script): \(cut.failure ?? "") reset \(cut.reset) timed out \(cut.timedOut)")
    let expected = whole.normalized, actual = cut.normalized
    if expected != actual {
        let common = zip(expected, actual).prefix { $0 == $1 }.count
        let context = { (bytes: [UInt8]) in String(decoding: bytes[max(0, common - 80)..<min(bytes.count, common + 120)], as: UTF8.self) }
        preconditionFailure(
            "\(script): answers differ at byte \(common) of \(expected.count) (got \(actual.count)): expected …\(context(expected))…, got …\(context(actual))…"
        )
    }
    let statistics = server.wireStatistics
    let largestAnswer = handler.largestAnswer.load(ordering: .relaxed)
    precondition(statistics.largestInputBytes <= RequestStreams.inputBound(configuration), "input over its bound: \(statistics)")
    precondition(
        statistics.largestOutputBytes <= RequestStreams.outputBound(configuration, largestAnswer: largestAnswer),
        "output over its bound: \(statistics), largest answer \(largestAnswer)")
    return 0
}

/// Writes 24 generated streams of at most 8 KiB, each behind an 8-byte seed, as seed inputs.
func writeSeeds(to directory: String) {
    var random = WireRandom(seed: 24)
    var written = 0
    while written < 24 {
        let stream = RequestStreams.stream(using: &random)
        guard stream.count <= 8 << 10 else { continue }
        let seed = random.next()
        let input = (0..<8).map { UInt8(truncatingIfNeeded: seed >> (56 - 8 * $0)) } + stream
        let file = fopen("\(directory)/stream-\(written)", "wb")
        _ = input.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
        written += 1
    }
}
