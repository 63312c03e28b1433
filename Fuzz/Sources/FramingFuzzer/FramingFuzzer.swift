@testable import EventHTTP

/// Raw bytes → `HTTPFraming` fed three ways: the whole stream in one `consume`, one byte per
/// `consume`, and in pieces of a length the input picks. The framing reads whole units at once where
/// it can and byte by byte otherwise, so every way must reach the same decisions: the same heads and
/// messages completed, the same removals, the same refusal (status, detail, cut offset), the same
/// discard offset and state. Byte 0 picks the head limit, byte 1 the piece length.
struct Outcome: Equatable {
    var events = FramingEvents()
    var isIdle = false
    var isFinished = false
    var position = 0
}

func outcome(of stream: UnsafeBufferPointer<UInt8>, pieceLength: Int, limits: HTTPFraming.Limits) -> Outcome {
    var framing = HTTPFraming(limits: limits)
    var result = Outcome()
    var start = 0
    while start < stream.count {
        let end = min(stream.count, start + pieceLength)
        var events = FramingEvents()
        framing.consume(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: stream[start..<end])), into: &events)
        result.events.append(events)
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
    precondition(whole == byByte, "whole \(whole) ≠ byte by byte \(byByte)")
    precondition(pieces == byByte, "pieces of \(1 + Int(data[1]) % 64): \(pieces) ≠ byte by byte \(byByte)")
    return 0
}
