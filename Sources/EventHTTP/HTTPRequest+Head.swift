import Glibc
import HTTPValues

extension HTTPRequest {
    /// Reads a request head that `HTTPFraming` has accepted (`head` runs from the method's first
    /// byte to the empty line's end): the framing checked every byte of it, so this only splits
    /// it — the method and target at their spaces, each field line at its colon, values without
    /// their surrounding white space. An absolute-form target (`http://host/todos?x`, RFC 9112
    /// §3.2.2) is routed by its path and query, and its authority is kept as `targetAuthority`
    /// (it wins over `Host`, §3.2.2), so that URLs the server builds name the host asked for.
    init(acceptedHead head: UnsafeRawBufferPointer, clientAddress: String) {
        let bytes = head.bindMemory(to: UInt8.self)
        let count = bytes.count
        var index = 0
        while index < count, bytes[index] != space { index += 1 }
        let method = HTTPMethod(token: UnsafeBufferPointer(rebasing: bytes[0..<index]))
        index = min(index + 1, count)
        let targetStart = index
        while index < count, bytes[index] != space { index += 1 }
        let (target, authority) = Self.originForm(UnsafeBufferPointer(rebasing: bytes[targetStart..<index]))
        index = min(index + 1, count)
        // "HTTP/1.x": the framing accepts 1.0 and 1.1 only.
        let minor = index + 7 < count ? Int(bytes[index + 7] &- UInt8(ascii: "0")) : 1
        while index < count, bytes[index] != lineFeed { index += 1 }
        index = min(index + 1, count)
        var fieldCount = 0
        for offset in index..<count where bytes[offset] == lineFeed { fieldCount += 1 }
        var headers = HTTPHeaders(capacity: max(0, fieldCount - 1))
        while index < count, bytes[index] != carriageReturn, bytes[index] != lineFeed {
            let nameStart = index
            while index < count, bytes[index] != colon { index += 1 }
            let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[nameStart..<index]), as: UTF8.self)
            index = min(index + 1, count)
            while index < count, bytes[index] == space || bytes[index] == tab { index += 1 }
            let valueStart = index
            while index < count, bytes[index] != lineFeed { index += 1 }
            var valueEnd = index
            index = min(index + 1, count)
            while valueEnd > valueStart, [space, tab, carriageReturn].contains(bytes[valueEnd - 1]) { valueEnd -= 1 }
            headers.add(name, String(decoding: UnsafeBufferPointer(rebasing: bytes[valueStart..<valueEnd]), as: UTF8.self))
        }
        // Every part given to the initializer: set after it, they cost a copy of the whole request.
        self.init(
            method: method, uri: target, headers: headers, version: (1, minor), targetAuthority: authority, clientAddress: clientAddress)
    }

    /// The origin form of `target`: itself when it starts with "/" (or is "*", or a CONNECT's
    /// authority); the path and query of an absolute form ("/" when it has no path), with its
    /// authority (the framing let through only `http` and `https` ones, with a host).
    private static func originForm(_ target: UnsafeBufferPointer<UInt8>) -> (target: String, authority: String?) {
        guard let first = target.first, first != UInt8(ascii: "/"), first != UInt8(ascii: "*"),
            let schemeEnd = target.firstIndex(of: colon), schemeEnd + 2 < target.count,
            target[schemeEnd + 1] == UInt8(ascii: "/"), target[schemeEnd + 2] == UInt8(ascii: "/")
        else { return (String(decoding: target, as: UTF8.self), nil) }
        let authorityStart = schemeEnd + 3
        var index = authorityStart
        while index < target.count, ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(target[index]) {
            index += 1
        }
        let authority = String(decoding: UnsafeBufferPointer(rebasing: target[authorityStart..<index]), as: UTF8.self)
        let rest = String(decoding: UnsafeBufferPointer(rebasing: target[index...]), as: UTF8.self)
        return (rest.utf8.first == UInt8(ascii: "/") ? rest : "/" + rest, authority)
    }

    /// Whether the client asks to keep the connection: HTTP/1.1 unless `Connection` lists
    /// `close`; HTTP/1.0 only when it lists `keep-alive` (RFC 9112 §9.3). The rule is the
    /// machine's (`ConnectionMachine.keepsAlive`).
    var wantsKeepAlive: Bool {
        let options = connectionOptions
        return ConnectionMachine.keepsAlive(minorVersion: version.minor, asksClose: options.close, asksKeepAlive: options.keepAlive)
    }

    /// Whether the `Connection` fields name `close` and `keep-alive`.
    var connectionOptions: (close: Bool, keepAlive: Bool) {
        var close = false, keepAlive = false
        for field in headers where field.name.utf8.count == 10 && field.name.equalsIgnoringASCIICase("Connection") {
            for option in field.value.split(separator: ",") {
                let token = option.trimmingASCIISpaces()
                if token.equalsIgnoringASCIICase("close") { close = true }
                if token.equalsIgnoringASCIICase("keep-alive") { keepAlive = true }
            }
        }
        return (close, keepAlive)
    }

    /// `Expect: 100-continue` (RFC 9110 §10.1.1) on an HTTP/1.1 request.
    var expectsContinue: Bool {
        guard version.minor >= 1, let expect = headers["Expect"] else { return false }
        return Substring(expect).trimmingASCIISpaces().equalsIgnoringASCIICase("100-continue")
    }
}

extension HTTPMethod {
    /// The method a request line's token names; `.unrecognized` for any other token.
    init(token: UnsafeBufferPointer<UInt8>) {
        func equals(_ name: StaticString) -> Bool {
            name.utf8CodeUnitCount == token.count && memcmp(name.utf8Start, token.baseAddress!, token.count) == 0
        }
        self =
            switch token.count {
            case 3: equals("GET") ? .get : equals("PUT") ? .put : .unrecognized
            case 4: equals("HEAD") ? .head : equals("POST") ? .post : .unrecognized
            case 5: equals("PATCH") ? .patch : equals("TRACE") ? .trace : .unrecognized
            case 6: equals("DELETE") ? .delete : .unrecognized
            case 7: equals("OPTIONS") ? .options : equals("CONNECT") ? .connect : .unrecognized
            default: .unrecognized
            }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    func trimmingASCIISpaces() -> Substring {
        var result = self
        while let first = result.utf8.first, first == space || first == tab { result = result.dropFirst() }
        while let last = result.utf8.last, last == space || last == tab { result = result.dropLast() }
        return result
    }

    func equalsIgnoringASCIICase(_ other: String) -> Bool {
        String(self).equalsIgnoringASCIICase(other)
    }
}

private let space = UInt8(ascii: " ")
private let tab = UInt8(ascii: "\t")
private let colon = UInt8(ascii: ":")
private let lineFeed = UInt8(ascii: "\n")
private let carriageReturn = UInt8(ascii: "\r")
