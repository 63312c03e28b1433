import TodoData

/// The shipped OpenAPI document with its first `servers` URL cut out, so that each request gets
/// the document with the URL clients should call: the configured public URL, else the request's
/// `Host` (what `RequestContext.baseURL` holds). A document without `servers` is served as it is.
public struct OpenAPIDocumentTemplate: Sendable, Equatable {
    /// The bytes before the URL's string literal, and after it; `suffix` is nil when there is no URL.
    private let prefix: [UInt8]
    private let suffix: [UInt8]?

    public init(_ document: [UInt8]) {
        guard let range = Self.firstServerURL(in: document) else {
            prefix = document
            suffix = nil
            return
        }
        prefix = Array(document[..<range.lowerBound])
        suffix = Array(document[range.upperBound...])
    }

    /// The document with `serverURL` as its first server's `url`, escaped as a JSON string.
    public func rendered(serverURL: String) -> [UInt8] {
        guard let suffix else { return prefix }
        var literal = JSONWriter(capacity: serverURL.utf8.count + 2)
        literal.string(serverURL)
        return prefix + literal.bytes + suffix
    }

    /// The range of the string literal (quotes included) of `"url"` in the first object after
    /// the `"servers"` key, or nil.
    static func firstServerURL(in document: [UInt8]) -> Range<Int>? {
        guard let servers = find(Array(#""servers""#.utf8), in: document, from: 0),
            let key = find(Array(#""url""#.utf8), in: document, from: servers.upperBound)
        else { return nil }
        var index = key.upperBound
        func skipSpace() {
            while index < document.count, [0x20, 0x09, 0x0A, 0x0D].contains(document[index]) { index += 1 }
        }
        skipSpace()
        guard index < document.count, document[index] == UInt8(ascii: ":") else { return nil }
        index += 1
        skipSpace()
        guard index < document.count, document[index] == UInt8(ascii: "\"") else { return nil }
        let start = index
        index += 1
        while index < document.count {
            switch document[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return start..<(index + 1)
            default: index += 1
            }
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Range<Int>? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        for index in start...(haystack.count - needle.count)
        where haystack[index] == needle[0] && haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return index..<(index + needle.count)
        }
        return nil
    }
}
