import Glibc
import TodoData

extension RequestScreening {
    /// Whether `host` is a `Host` value this server accepts (RFC 9112 §3.2: `uri-host [ ":" port ]`,
    /// RFC 3986 §3.2.2): a bracketed IPv6 address, or a host name or IPv4 address made of dot-separated
    /// labels of letters, digits, `-` and `_` (1 to 63 bytes, no `-` at either end; one trailing dot
    /// allowed), then an optional port of up to 5 digits, at most 65535 (`host:` with an empty port
    /// is valid syntax and accepted). A value that is not one is answered 400, and is never built
    /// into a link. IPvFuture literals and IPv6 zone identifiers name no address a client can reach
    /// this server at, and are refused too.
    static func isValidHost(_ host: String) -> Bool {
        guard (1...255).contains(host.utf8.count) else { return false }
        // On the bytes when contiguous: this runs for every request.
        if let decided = host.utf8.withContiguousStorageIfAvailable({ isValidHost(bytes: $0) }) { return decided }
        return Array(host.utf8).withUnsafeBufferPointer { isValidHost(bytes: $0) }
    }

    private static func isValidHost(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let hostEnd: Int
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), isIPv6(UnsafeBufferPointer(rebasing: bytes[1..<close])) else {
                return false
            }
            hostEnd = close + 1
        } else {
            hostEnd = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.count
            guard isHostName(UnsafeBufferPointer(rebasing: bytes[0..<hostEnd])) else { return false }
        }
        guard hostEnd < bytes.count else { return true }
        guard bytes[hostEnd] == UInt8(ascii: ":") else { return false }
        return isPort(UnsafeBufferPointer(rebasing: bytes[(hostEnd + 1)...]))
    }

    /// Dot-separated labels of letters, digits, `-` and `_`, each 1 to 63 bytes and not starting
    /// or ending with `-`; a trailing dot (a fully qualified name) is allowed.
    private static func isHostName(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !name.isEmpty, name.first != UInt8(ascii: ".") else { return false }
        var labelStart = 0
        for index in 0...name.count {
            if index == name.count || name[index] == UInt8(ascii: ".") {
                let length = index - labelStart
                if length == 0 { return index == name.count && index > 0 }  // "a." yes; "a..b" no
                guard length <= 63, name[labelStart] != UInt8(ascii: "-"), name[index - 1] != UInt8(ascii: "-") else { return false }
                labelStart = index + 1
                continue
            }
            switch name[index] {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"):
                continue
            default:
                return false
            }
        }
        return true
    }

    /// Empty, or up to 5 digits with a value of at most 65535.
    private static func isPort(_ port: UnsafeBufferPointer<UInt8>) -> Bool {
        guard port.count <= 5 else { return false }
        var value = 0
        for byte in port {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return false }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value <= 65_535
    }

    /// An IPv6 address as RFC 3986's `IPv6address` writes it (hex groups, `::`, an IPv4 tail).
    private static func isIPv6(_ address: UnsafeBufferPointer<UInt8>) -> Bool {
        guard (2...45).contains(address.count),
            address.allSatisfy({ Hex.value(of: $0) != nil || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
        else { return false }
        var text = Array(address)
        text.append(0)
        var parsed = in6_addr()
        return text.withUnsafeBufferPointer {
            inet_pton(AF_INET6, UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), &parsed)
        } == 1
    }
}
