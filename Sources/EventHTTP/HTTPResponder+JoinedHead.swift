import CLibevent
import Glibc

/// The response's header fields and `Date` as one evhttp header entry.
///
/// `evhttp_send_reply` prints every entry of the output header list with its own
/// `evbuffer_add_printf("%s: %s\r\n")` (~1.7k instructions each) after `evhttp_add_header` copied
/// it in three allocations. The entry written here has `Date` as its key and, as its value, the
/// date followed by `\r\nName: value` for every field of the response: evhttp prints the same
/// lines in one call, and finds the `Date` it looks for (it adds none of its own). The other fields
/// evhttp itself looks up or rewrites (`Content-Length`, `Transfer-Encoding`, `Connection`,
/// `Proxy-Connection`) never go in it, so its own decisions see what they saw before; a response
/// that names one of them or `Date`, or whose bytes hold a NUL, CR or LF (which
/// `evhttp_add_header` would refuse), goes field by field as before.
///
/// On the wire the only difference from one entry per field is the order: `Date` comes first,
/// before the handler's fields, instead of after them (RFC 9110 §5.3: the order of fields with
/// different names carries no meaning).
extension HTTPResponder {
    /// Whether evhttp looks `name` up in the output headers (`evhttp_make_header_response`):
    /// `Date`, `Content-Length`, `Transfer-Encoding`, `Connection`, `Proxy-Connection`. By length
    /// first: a loop over a list of names retains and releases each of them.
    private static func isReadByEvhttp(_ name: String) -> Bool {
        switch name.utf8.count {
        case 4: name.equalsIgnoringASCIICase("Date")
        case 10: name.equalsIgnoringASCIICase("Connection")
        case 14: name.equalsIgnoringASCIICase("Content-Length")
        case 16: name.equalsIgnoringASCIICase("Proxy-Connection")
        case 17: name.equalsIgnoringASCIICase("Transfer-Encoding")
        default: false
        }
    }

    /// Appends `Date: <date of secondsSinceEpoch>` and then `headers` to `output` as one entry.
    /// False, with nothing appended, when they have to go field by field.
    static func appendJoined(
        _ headers: HTTPHeaders, dateSeconds: Int, to output: UnsafeMutablePointer<evkeyvalq>
    ) -> Bool {
        // Through the array's buffer by index: iterating copies each field and retains its strings.
        headers.fields.withUnsafeBufferPointer { fields in
            var valueLength = HTTPDate.length
            for index in fields.indices {
                if isReadByEvhttp(fields[index].name) { return false }
                valueLength += fields[index].name.utf8.count + 4 + fields[index].value.utf8.count
            }
            guard let key = malloc(5)?.assumingMemoryBound(to: UInt8.self) else { return false }
            guard let value = malloc(valueLength + 1)?.assumingMemoryBound(to: UInt8.self) else {
                free(key)
                return false
            }
            HTTPDate.write(secondsSinceEpoch: dateSeconds, to: UnsafeMutableRawPointer(value).assumingMemoryBound(to: CChar.self))
            var written = HTTPDate.length
            var clean = true
            for index in fields.indices {
                value[written] = 0x0D
                value[written + 1] = 0x0A
                written += 2
                guard let count = copyChecked(fields[index].name, to: value + written) else { clean = false; break }
                written += count
                value[written] = UInt8(ascii: ":")
                value[written + 1] = UInt8(ascii: " ")
                written += 2
                guard let count = copyChecked(fields[index].value, to: value + written) else { clean = false; break }
                written += count
            }
            guard clean, written == valueLength else {
                free(key)
                free(value)
                return false
            }
            (key[0], key[1], key[2], key[3], key[4]) = (UInt8(ascii: "D"), UInt8(ascii: "a"), UInt8(ascii: "t"), UInt8(ascii: "e"), 0)
            value[valueLength] = 0
            return clibevent_append_owned_header(
                output, UnsafeMutableRawPointer(key).assumingMemoryBound(to: CChar.self),
                UnsafeMutableRawPointer(value).assumingMemoryBound(to: CChar.self)) == 0
        }
    }

    /// Appends `Content-Length: <length>` to `output`, the digits written here (evhttp's own
    /// field goes through `snprintf` and `evhttp_add_header`'s copies and checks).
    static func appendContentLength(_ length: Int, to output: UnsafeMutablePointer<evkeyvalq>) {
        guard let key = strdup("Content-Length") else { return }
        guard let value = malloc(21)?.assumingMemoryBound(to: CChar.self) else {
            free(key)
            return
        }
        var digits = 0
        var rest = Swift.max(0, length)
        repeat {
            digits += 1
            rest /= 10
        } while rest > 0
        rest = Swift.max(0, length)
        value[digits] = 0
        for position in stride(from: digits - 1, through: 0, by: -1) {
            value[position] = CChar(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        }
        _ = clibevent_append_owned_header(output, key, value)
    }

    /// Appends `Date: <now>` (IMF-fixdate) to `output`.
    static func appendDate(secondsSinceEpoch seconds: Int, to output: UnsafeMutablePointer<evkeyvalq>) {
        guard let key = strdup("Date") else { return }
        guard let value = malloc(HTTPDate.length + 1)?.assumingMemoryBound(to: CChar.self) else {
            free(key)
            return
        }
        HTTPDate.write(secondsSinceEpoch: seconds, to: value)
        _ = clibevent_append_owned_header(output, key, value)
    }

    /// Copies the UTF-8 bytes of `text` to `destination`; nil if one is a NUL, CR or LF.
    @inline(__always)
    private static func copyChecked(_ text: String, to destination: UnsafeMutablePointer<UInt8>) -> Int? {
        let copied = text.utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            if containsNulOrLineBreak(bytes) { return nil }
            if let base = bytes.baseAddress { destination.update(from: base, count: bytes.count) }
            return bytes.count
        }
        return copied ?? nil
    }

    /// Whether `bytes` hold a NUL, CR or LF. Eight bytes at a time: a word none of whose bytes is
    /// below 0x0E (the usual case: header values are visible ASCII) is passed with one test;
    /// only a word that has one is looked at byte by byte (a tab, for one, is below 0x0E and allowed).
    /// A loop over single bytes cost ~1.5k instructions per response's head.
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
}
