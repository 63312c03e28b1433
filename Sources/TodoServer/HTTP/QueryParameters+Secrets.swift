import TodoData

extension QueryParameters {
    /// What the logs write in place of a secret parameter's value.
    public static let mask = "(redacted)"

    /// `query` with the value of every secret parameter (`isSecret(name:)`) replaced by `mask`,
    /// the rest as sent: what every log line writes for a request's query. Names are read by
    /// `forEachItem`, the router's own reading, so that whatever spelling the router decodes to
    /// `access_token` (`%61ccess_token`, `access%5Ftoken`) is masked too, as is every repeat of the
    /// parameter, not only the one the router takes.
    public static func maskingSecrets(in query: String) -> String {
        guard mayNameASecret(query) else { return query }
        var masked = ""
        var copied = query.startIndex
        forEachItem(in: query) { name, rawValue in
            guard let rawValue, isSecret(name: name) else { return }
            masked += query[copied..<rawValue.startIndex]
            masked += mask
            copied = rawValue.endIndex
        }
        guard !masked.isEmpty else { return query }
        return masked + query[copied...]
    }

    /// Whether a parameter of this (decoded) name holds a secret: `access_token`, the live feed's
    /// bearer token (RFC 6750 §2.3), in any case (`CaseFold`: `ACCESS_TOKEN`, a Kelvin sign for the
    /// k). The router takes the token under the exact name only; a client that sends another
    /// case sends its token all the same, and it is refused (401) but must not reach the log.
    public static func isSecret(name: String) -> Bool {
        CaseFold.folded(name) == "access_token"
    }

    /// False when no item of `query` can decode to a secret name: without `%` and bytes past
    /// ASCII a name decodes to itself (`+` to a space) and folds as ASCII does, so it can fold to
    /// `access_token` only if those letters are in the query in some case. Spares the scan of the
    /// items for most requests.
    static func mayNameASecret(_ query: String) -> Bool {
        if let answer = query.utf8.withContiguousStorageIfAvailable(mayNameASecret) { return answer }
        return Array(query.utf8).withUnsafeBufferPointer(mayNameASecret)
    }

    private static let secretName = Array("access_token".utf8)

    private static func mayNameASecret(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 >= 0x80 }) { return true }
        let name = secretName
        guard bytes.count >= name.count else { return false }
        for start in 0...(bytes.count - name.count) where asciiLowercased(bytes[start]) == name[0] {
            if name.indices.allSatisfy({ asciiLowercased(bytes[start + $0]) == name[$0] }) { return true }
        }
        return false
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
