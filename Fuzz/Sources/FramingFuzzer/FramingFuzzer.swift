@testable import EventHTTP

/// Raw bytes → `HTTPFraming` fed three ways: the whole stream in one `consume`, one byte per
/// `consume`, and in pieces of a length the input picks. The framing reads whole units at once where
/// it can and byte by byte otherwise, so every way must reach the same decisions: the same heads and
/// messages completed, the same removals, the same refusal (status, detail, cut offset), the same
/// discard offset, body spans and state — and so must a fourth way, the connection's: pieces fed
/// with `stoppingAtBoundary`, consumed again from where each call stopped. Byte 0 picks the head
/// limit, byte 1 the piece length.
struct Outcome: Equatable {
    var events = FramingEvents()
    var isIdle = false
    var isFinished = false
    var position = 0
}

func outcome(of stream: UnsafeBufferPointer<UInt8>, pieceLength: Int, limits: HTTPFraming.Limits, stopping: Bool = false) -> Outcome {
    var framing = HTTPFraming(limits: limits)
    framing.recordsBodySpans = true
    var result = Outcome()
    var start = 0
    while start < stream.count {
        let end = min(stream.count, start + pieceLength)
        var offset = start
        repeat {
            var events = FramingEvents()
            let taken = framing.consume(
                UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: stream[offset..<end])), into: &events, stoppingAtBoundary: stopping)
            precondition(taken > 0 || framing.isFinished || offset == end, "a stopping consume took nothing")
            result.events.append(events)
            offset += taken
            if framing.isFinished { offset = end }
        } while offset < end
        start = end
    }
    result.isIdle = framing.isIdle
    result.isFinished = framing.isFinished
    result.position = framing.position
    return result
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 2 else { return 0 }
    let limits = HTTPFraming.Limits(maxHeadBytes: 16 + Int(data[0]) * 4, maxBodyBytes: 4096, maxChunkLineBytes: 64)
    let stream = UnsafeBufferPointer(start: data + 2, count: size - 2)
    let whole = outcome(of: stream, pieceLength: stream.count, limits: limits)
    let byByte = outcome(of: stream, pieceLength: 1, limits: limits)
    let pieces = outcome(of: stream, pieceLength: 1 + Int(data[1]) % 64, limits: limits)
    let stopping = outcome(of: stream, pieceLength: 1 + Int(data[1]) % 64, limits: limits, stopping: true)
    precondition(whole == byByte, "whole \(whole) ≠ byte by byte \(byByte)")
    // No body passes the limit, however its sizes are spelled (issue 35: sizes of 2^63 and more
    // wrapped and lifted it): body bytes framed ≤ the limit for each head accepted.
    let bodyBytes = byByte.events.bodySpans.reduce(0) { $0 + $1.count }
    precondition(
        bodyBytes <= byByte.events.headsCompleted * limits.maxBodyBytes, "\(bodyBytes) body bytes for \(byByte.events.headsCompleted) heads"
    )
    precondition(pieces == byByte, "pieces of \(1 + Int(data[1]) % 64): \(pieces) ≠ byte by byte \(byByte)")
    precondition(
        stopping.events == byByte.events && stopping.isIdle == byByte.isIdle,
        "stopping at boundaries, pieces of \(1 + Int(data[1]) % 64): \(stopping) ≠ byte by byte \(byByte)")
    return 0
}
