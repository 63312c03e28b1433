import CLibevent
import Glibc
import HTTPValues

/// Writes an answer into a connection's output, once: the status line, `Date` (the handler's own
/// when it gave one), the handler's fields in order, `Content-Length`, `Connection` when the
/// connection closes (or an HTTP/1.0 client keeps it), the empty line and the body — the head and
/// a small body in one reserved piece of the buffer, so that one `writev` sends them.
enum HTTPResponseWriter {
    /// What the connection decided about the answer's framing.
    struct Framing {
        /// A HEAD request: the GET's `Content-Length`, no body.
        var isHead: Bool
        /// `Connection: close` is sent and the connection closes after the answer.
        var closes: Bool
        /// The client spoke HTTP/1.0 (and keeps the connection): `Connection: keep-alive`.
        var http10KeepAlive: Bool
        /// How the body's end is known.
        var streamed: Streamed = .no

        enum Streamed {
            /// `Content-Length`: the body is the response's.
            case no
            /// A body written later in chunks: `Transfer-Encoding: chunked`.
            case chunked
            /// A body written later, ended by the close (an HTTP/1.0 client).
            case closeDelimited
        }
    }

    /// Bodies up to this size are copied into the head's piece of the buffer.
    static let inlineBodyBytes = 16 << 10

    /// Appends `response` to `output`; returns the bytes added.
    static func write(_ response: HTTPResponse, framing: Framing, date: UnsafePointer<UInt8>, to output: OpaquePointer) -> Int {
        let status = min(999, max(100, response.status))
        let reason = HTTPStatus.reasonPhrase(status)
        let hasBody = status >= 200 && status != 204 && status != 304
        let bodyCount = framing.streamed == .no ? response.body.count : 0
        let sendsBody = hasBody && !framing.isHead && bodyCount > 0
        var ownDate = false
        // The head's size first, then the bytes into one reserved piece. The fields are read in
        // place (a copy of each is two retains and two releases) and checked once: the first 64
        // fields' verdicts are kept in `sendable` for the second pass.
        var size = 9 + 3 + 1 + reason.utf8.count + 2
        var sendable: UInt64 = 0
        response.headers.fields.withUnsafeBufferPointer { fields in
            for index in fields.indices where isSendable(name: fields[index].name, value: fields[index].value) {
                if index < 64 { sendable |= 1 << UInt64(index) }
                let name = fields[index].name.utf8.count
                if name == 4, fields[index].name.equalsIgnoringASCIICase("Date") { ownDate = true }
                size += name + 2 + fields[index].value.utf8.count + 2
            }
        }
        if !ownDate { size += 6 + HTTPDate.length + 2 }
        if hasBody {
            switch framing.streamed {
            case .no: size += 16 + decimalDigits(bodyCount) + 2
            case .chunked: size += 28
            case .closeDelimited: break
            }
        }
        if framing.closes { size += 19 } else if framing.http10KeepAlive { size += 24 }
        size += 2
        let inline = sendsBody && bodyCount <= inlineBodyBytes
        let reserved = size + (inline ? bodyCount : 0)
        var vector = iovec()
        guard evbuffer_reserve_space(output, reserved, &vector, 1) >= 1, let base = vector.iov_base else { return 0 }
        // The writes go through static functions that take the position inout: nested functions
        // capturing it, called from the fields' closure, made it a boxed variable with a dynamic
        // exclusivity check (`swift_beginAccess`) at every write, 66 for a POST's answer.
        var out = base.assumingMemoryBound(to: UInt8.self)
        put("HTTP/1.1 ", at: &out)
        putNumber(status, at: &out)
        put(" ", at: &out)
        put(reason, at: &out)
        put("\r\n", at: &out)
        if !ownDate {
            put("Date: ", at: &out)
            memcpy(out, date, HTTPDate.length)
            out += HTTPDate.length
            put("\r\n", at: &out)
        }
        out = response.headers.fields.withUnsafeBufferPointer { [start = out] fields in
            var out = start
            for index in fields.indices
            where index < 64 ? sendable & (1 << UInt64(index)) != 0 : isSendable(name: fields[index].name, value: fields[index].value) {
                put(fields[index].name, at: &out)
                put(": ", at: &out)
                put(fields[index].value, at: &out)
                put("\r\n", at: &out)
            }
            return out
        }
        if hasBody {
            switch framing.streamed {
            case .no:
                put("Content-Length: ", at: &out)
                putNumber(bodyCount, at: &out)
                put("\r\n", at: &out)
            case .chunked: put("Transfer-Encoding: chunked\r\n", at: &out)
            case .closeDelimited: break
            }
        }
        if framing.closes {
            put("Connection: close\r\n", at: &out)
        } else if framing.http10KeepAlive {
            put("Connection: keep-alive\r\n", at: &out)
        }
        put("\r\n", at: &out)
        if inline { response.body.withUnsafeBytes { _ = memcpy(out, $0.baseAddress!, bodyCount) } }
        vector.iov_len = reserved
        evbuffer_commit_space(output, &vector, 1)
        if sendsBody && !inline {
            response.body.withUnsafeBytes { _ = evbuffer_add(output, $0.baseAddress, bodyCount) }
        }
        return size + (sendsBody ? bodyCount : 0)
    }

    @inline(__always)
    private static func put(_ text: StaticString, at out: inout UnsafeMutablePointer<UInt8>) {
        memcpy(out, text.utf8Start, text.utf8CodeUnitCount)
        out += text.utf8CodeUnitCount
    }

    @inline(__always)
    private static func put(_ text: String, at out: inout UnsafeMutablePointer<UInt8>) {
        let target = out
        out += withBytes(of: text) { bytes in
            if let source = bytes.baseAddress { memcpy(target, source, bytes.count) }
            return bytes.count
        }
    }

    private static func putNumber(_ value: Int, at out: inout UnsafeMutablePointer<UInt8>) {
        let digits = decimalDigits(value)
        var rest = value
        for offset in stride(from: digits - 1, through: 0, by: -1) {
            out[offset] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        out += digits
    }

    /// A field the writer sends: not `Content-Length` or `Connection` (the writer's own), and no
    /// NUL, CR or LF in its name or value (a value that would start another line is dropped).
    private static func isSendable(name: String, value: String) -> Bool {
        switch name.utf8.count {
        case 0: return false
        case 10 where name.equalsIgnoringASCIICase("Connection"): return false
        case 14 where name.equalsIgnoringASCIICase("Content-Length"): return false
        case 17 where name.equalsIgnoringASCIICase("Transfer-Encoding"): return false
        default: return !withBytes(of: name, containsNulOrLineBreak) && !withBytes(of: value, containsNulOrLineBreak)
        }
    }

    /// `body` over the string's UTF-8 bytes, in place when the string has them contiguous (a native
    /// string always does), else over a copy.
    @inline(__always)
    private static func withBytes<R>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        return copy.withUTF8(body)
    }

    /// Whether `bytes` hold a NUL, CR or LF. Eight bytes at a time: a word none of whose bytes is
    /// below 0x0E (the usual case: header values are visible ASCII) is passed with one test; only a
    /// word that has one is looked at byte by byte (a tab, for one, is below 0x0E and allowed).
    static func containsNulOrLineBreak(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let count = bytes.count
        var index = 0
        while count - index >= 8 {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            // Nonzero exactly when some byte of `word` is below 0x0E ("hasless", for n <= 128).
            if (word &- 0x0E0E_0E0E_0E0E_0E0E) & ~word & 0x8080_8080_8080_8080 != 0 {
                for offset in index..<(index + 8) where isNulOrLineBreak(base[offset]) { return true }
            }
            index += 8
        }
        while index < count {
            if isNulOrLineBreak(base[index]) { return true }
            index += 1
        }
        return false
    }

    @inline(__always)
    private static func isNulOrLineBreak(_ byte: UInt8) -> Bool {
        byte == 0 || byte == 0x0A || byte == 0x0D
    }

    private static func decimalDigits(_ value: Int) -> Int {
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        return digits
    }
}
