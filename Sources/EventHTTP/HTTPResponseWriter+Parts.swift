import CLibevent

/// The writer's other pieces on the wire: `100 Continue` before a body the client holds back, and
/// a streamed body's parts — each chunk's size line and end, the last chunk, or the bytes as they
/// are when the body is close-delimited. Each appends to a connection's output and returns the
/// bytes added.
extension HTTPResponseWriter {
    /// `HTTP/1.1 100 Continue`, sent before reading a body the client waits to send.
    static func writeContinue(to output: OpaquePointer) -> Int {
        let line: StaticString = "HTTP/1.1 100 Continue\r\n\r\n"
        evbuffer_add(output, line.utf8Start, line.utf8CodeUnitCount)
        return line.utf8CodeUnitCount
    }

    /// `bytes` as the next part of a streamed body: one chunk (`chunked`), or as they are.
    static func writePart(_ bytes: UnsafeRawBufferPointer, chunked: Bool, to output: OpaquePointer) -> Int {
        guard !bytes.isEmpty else { return 0 }
        let size = chunked ? writeChunkSize(bytes.count, to: output) : 0
        evbuffer_add(output, bytes.baseAddress, bytes.count)
        return size + bytes.count + (chunked ? writeLineEnd(to: output) : 0)
    }

    /// The bytes of `parts` (emptied) as one chunk.
    static func writeChunk(movingFrom parts: OpaquePointer, to output: OpaquePointer) -> Int {
        let count = evbuffer_get_length(parts)
        guard count > 0 else { return 0 }
        let size = writeChunkSize(count, to: output)
        evbuffer_add_buffer(output, parts)
        return size + count + writeLineEnd(to: output)
    }

    /// The last chunk of a chunked body, no trailer.
    static func writeLastChunk(to output: OpaquePointer) -> Int {
        let last: StaticString = "0\r\n\r\n"
        evbuffer_add(output, last.utf8Start, last.utf8CodeUnitCount)
        return last.utf8CodeUnitCount
    }

    /// A chunk's size line: `count` in hexadecimal, CRLF (at most 16 digits and 2 bytes, made on
    /// the stack).
    private static func writeChunkSize(_ count: Int, to output: OpaquePointer) -> Int {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 18) { line in
            var digits = 0
            var rest = UInt(count)
            repeat {
                digits += 1
                rest >>= 4
            } while rest > 0
            rest = UInt(count)
            for offset in stride(from: digits - 1, through: 0, by: -1) {
                let digit = UInt8(rest & 0xF)
                line[offset] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                rest >>= 4
            }
            line[digits] = 13
            line[digits + 1] = 10
            evbuffer_add(output, line.baseAddress, digits + 2)
            return digits + 2
        }
    }

    private static func writeLineEnd(to output: OpaquePointer) -> Int {
        evbuffer_add(output, "\r\n", 2)
        return 2
    }
}
