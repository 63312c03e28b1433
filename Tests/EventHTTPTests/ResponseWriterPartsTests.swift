import CLibevent
import TestSupport
import Testing

@testable import EventHTTP

@Suite("EventHTTP: the writer's streamed parts, 100 Continue and the last chunk", .tags(.singleThreaded))
struct ResponseWriterPartsTests {
    /// The bytes `write` appends to a fresh buffer, and the count it returned.
    private func written(_ write: (OpaquePointer) -> Int) -> (bytes: [UInt8], returned: Int) {
        let output = evbuffer_new()!
        defer { evbuffer_free(output) }
        let returned = write(output)
        var bytes = [UInt8](repeating: 0, count: evbuffer_get_length(output))
        _ = evbuffer_remove(output, &bytes, bytes.count)
        return (bytes, returned)
    }

    private func part(_ bytes: [UInt8], chunked: Bool) -> (bytes: [UInt8], returned: Int) {
        written { output in bytes.withUnsafeBytes { HTTPResponseWriter.writePart($0, chunked: chunked, to: output) } }
    }

    @Test(
        "a chunk's size line is its length in lowercase hexadecimal, as String(radix: 16) spells it: every length up to 4,200 and either side of each power of 16 up to 16^5"
    )
    func chunkSizes() {
        var lengths = Array(1...4_200)
        for shift in stride(from: 12, through: 20, by: 4) { lengths += [(1 << shift) - 1, 1 << shift, (1 << shift) + 1] }
        for length in lengths {
            let body = [UInt8](repeating: UInt8(ascii: "x"), count: length)
            let (bytes, returned) = part(body, chunked: true)
            let line = Array((String(length, radix: 16) + "\r\n").utf8)
            #expect(returned == bytes.count, "length \(length)")
            #expect(Array(bytes.prefix(line.count)) == line, "length \(length)")
            #expect(bytes.count == line.count + length + 2, "length \(length)")
            #expect(Array(bytes.suffix(2)) == [13, 10], "length \(length)")
        }
    }

    @Test("a chunked part is its size line, the bytes and CRLF; a close-delimited part is the bytes alone; an empty part writes nothing")
    func parts() {
        #expect(part(Array("data: 1\n\n".utf8), chunked: true) == (Array("9\r\ndata: 1\n\n\r\n".utf8), 14))
        #expect(part(Array("data: 1\n\n".utf8), chunked: false) == (Array("data: 1\n\n".utf8), 9))
        #expect(part([], chunked: true) == ([], 0))
        #expect(part([], chunked: false) == ([], 0))
        let sixteen = [UInt8](repeating: 0x41, count: 16)
        #expect(part(sixteen, chunked: true) == (Array("10\r\n".utf8) + sixteen + [13, 10], 22))
    }

    @Test("staged parts move into the output as one chunk and leave their buffer empty; an empty buffer writes nothing")
    func stagedChunk() {
        let parts = evbuffer_new()!
        defer { evbuffer_free(parts) }
        for piece in ["event: a\n", "data: {}\n\n", String(repeating: "z", count: 300)] {
            _ = piece.utf8CString.withUnsafeBufferPointer { evbuffer_add(parts, $0.baseAddress, $0.count - 1) }
        }
        let body = "event: a\ndata: {}\n\n" + String(repeating: "z", count: 300)
        let moved = written { HTTPResponseWriter.writeChunk(movingFrom: parts, to: $0) }
        #expect(moved.bytes == Array("13f\r\n\(body)\r\n".utf8))
        #expect(moved.returned == 5 + 319 + 2)
        #expect(evbuffer_get_length(parts) == 0)
        #expect(written { HTTPResponseWriter.writeChunk(movingFrom: parts, to: $0) } == ([], 0))
    }

    @Test("100 Continue and the last chunk, byte for byte")
    func fixedLines() {
        #expect(written { HTTPResponseWriter.writeContinue(to: $0) } == (Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), 25))
        #expect(written { HTTPResponseWriter.writeLastChunk(to: $0) } == (Array("0\r\n\r\n".utf8), 5))
    }
}
