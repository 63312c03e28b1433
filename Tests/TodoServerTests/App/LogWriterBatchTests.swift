import Glibc
import TestSupport
import Testing

@testable import TodoServer

/// The writer thread's batches: lines wait (at most `batchInterval`) to go out together with one
/// `write(2)`, unless a flush or close asks, or `eagerBytes` are queued.
@Suite("LogWriter batches")
struct LogWriterBatchTests {
    /// Runs `body` with a writer to a fresh pipe, batching for `batchInterval`; closes both after it.
    func withWriter(batchInterval: Duration, _ body: (LogWriter, NonBlockingPipe) throws -> Void) throws {
        let pipe = try NonBlockingPipe()
        defer { pipe.close() }
        let writer = LogWriter(descriptor: pipe.writeEnd, capacityBytes: 1 << 20, batchInterval: batchInterval) { _ in [] }
        defer { writer.close(timeout: .seconds(20)) }
        try body(writer, pipe)
    }

    static func line(_ number: Int) -> [UInt8] {
        Array("line \(number) \(String(repeating: "x", count: 40))\n".utf8)
    }

    @Test("lines queued within the interval stay queued, then a flush writes them all with one write(2)")
    func oneWritePerBatch() throws {
        try withWriter(batchInterval: .seconds(3600)) { writer, pipe in
            let lines = (0..<100).map(Self.line)
            for line in lines { writer.enqueue(line) }
            // Nothing may arrive before the interval (an hour) ends: watched for a while, not forever.
            #expect(!eventually(timeout: .milliseconds(300)) { !pipe.read().isEmpty }, "the batch waits for its interval")
            #expect(writer.writeCalls == 0)
            #expect(writer.flush(timeout: .seconds(20)), "a flush cuts the wait short")
            #expect(pipe.read() == Array(lines.joined()))
            #expect(writer.writeCalls == 1, "100 lines, one write(2)")
        }
    }

    @Test("a lone line is written once the interval has passed, without a flush")
    func loneLineAfterInterval() throws {
        try withWriter(batchInterval: .milliseconds(5)) { writer, pipe in
            writer.enqueue(Self.line(1))
            #expect(eventually(timeout: .seconds(20)) { pipe.read() == Self.line(1) })
            writer.enqueue(Self.line(2))
            #expect(
                eventually(timeout: .seconds(20)) { pipe.read() == Self.line(1) + Self.line(2) },
                "the writer sleeps again after a batch and wakes for the next line")
            #expect(writer.writeCalls == 2)
        }
    }

    @Test("eagerBytes queued wake the writer before its interval ends")
    func eagerBatch() throws {
        try withWriter(batchInterval: .seconds(3600)) { writer, pipe in
            var queued: [UInt8] = []
            var number = 0
            while queued.count < LogWriter.eagerBytes {
                let line = Self.line(number)
                writer.enqueue(line)
                queued += line
                number += 1
            }
            #expect(queued.count < 60_000, "fits the pipe: one write takes it")
            #expect(eventually(timeout: .seconds(20)) { pipe.read() == queued })
            #expect(writer.writeCalls == 1)
        }
    }

    @Test("an interval of zero writes without waiting for more lines")
    func zeroInterval() throws {
        try withWriter(batchInterval: .zero) { writer, pipe in
            writer.enqueue(Self.line(7))
            #expect(eventually(timeout: .seconds(20)) { pipe.read() == Self.line(7) })
        }
    }

    @Test("close writes what is queued at once and drops later lines")
    func closeWritesQueued() throws {
        let pipe = try NonBlockingPipe()
        defer { pipe.close() }
        let writer = LogWriter(descriptor: pipe.writeEnd, capacityBytes: 1 << 20, batchInterval: .seconds(3600)) { _ in [] }
        writer.enqueue(Self.line(1))
        writer.close(timeout: .seconds(20))
        #expect(pipe.read() == Self.line(1))
        writer.enqueue(Self.line(2))
        #expect(writer.droppedLines == 1)
        #expect(pipe.read() == Self.line(1))
    }
}
