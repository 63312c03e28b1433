import Glibc
import HTTPValues

/// A route of the API: what a request path names, which methods it allows. The paths, methods
/// and templates are those of `Route.table`.
public enum Route: Sendable, Equatable {
    case index
    case health
    case todos
    case upcoming
    /// The live change feed.
    case events
    case todo(id: String)
    case metrics
    case openAPI

    /// Matches a raw (percent-encoded) path against `Route.table`; static paths win over `/todos/{id}`.
    public init?(path: String) {
        // Through the table's buffer, byte lengths before text: no copy of each row (four retains
        // and releases), and a template is compared in full only when its length matches.
        let length = path.utf8.count
        let found = Route.table.withUnsafeBufferPointer { table -> Route?? in
            for index in table.indices
            where table[index].parameterPrefix == nil && table[index].template.utf8.count == length && table[index].template == path {
                return table[index].route
            }
            for index in table.indices {
                guard let prefix = table[index].parameterPrefix, let id = Route.parameter(of: path, after: prefix) else { continue }
                return .todo(id: id)
            }
            return .some(nil)
        }
        guard let found, let route = found else { return nil }
        self = route
    }

    /// The percent-decoded rest of `path` after `prefix`, when it is one non-empty segment. On the
    /// path's contiguous bytes, sparing the generic `UTF8View` scans.
    private static func parameter(of path: String, after prefix: String) -> String? {
        let scanned = path.utf8.withContiguousStorageIfAvailable { bytes -> String?? in
            prefix.utf8.withContiguousStorageIfAvailable { start -> String? in
                guard bytes.count > start.count, memcmp(bytes.baseAddress!, start.baseAddress!, start.count) == 0 else { return nil }
                let id = UnsafeBufferPointer(rebasing: bytes[start.count...])
                var encoded = false
                for byte in id {
                    if byte == UInt8(ascii: "/") { return nil }
                    if byte == UInt8(ascii: "%") { encoded = true }
                }
                let text = String(decoding: id, as: UTF8.self)
                return encoded ? PercentDecoding.decode(text) : text
            }
        }
        if let scanned, let result = scanned { return result }
        let utf8 = path.utf8, start = prefix.utf8
        guard utf8.count > start.count, utf8.starts(with: start) else { return nil }
        let id = utf8.dropFirst(start.count)
        guard !id.contains(UInt8(ascii: "/")) else { return nil }
        return PercentDecoding.decode(Substring(id))
    }

    /// The methods the route answers, in the order `Allow` lists them.
    public var allowedMethods: [HTTPMethod] { definition.methods }

    /// The `Allow` field value.
    public var allow: String {
        allowedMethods.map(\.rawValue).joined(separator: ", ")
    }

    /// The path template, as logs and metrics name the route.
    public var template: String { definition.template }
}
