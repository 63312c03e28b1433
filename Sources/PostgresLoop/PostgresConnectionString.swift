/// What a connection string looks like in logs: the same text with every password replaced by
/// `***` (`password=…` in the key=value form; `user:…@` and `?password=…` in a URI). Pure text
/// work: nothing is resolved or connected.
public enum PostgresConnectionString {
    public static let mask = "***"

    public static func masked(_ connectionString: String) -> String {
        let text = connectionString
        if text.hasPrefix("postgresql://") || text.hasPrefix("postgres://") { return maskedURI(text) }
        return maskedKeywords(text)
    }

    /// `postgresql://user:secret@host/db?password=secret` → `postgresql://user:***@host/db?password=***`.
    static func maskedURI(_ uri: String) -> String {
        var characters = Array(uri)
        let schemeEnd = characters.firstIndex(of: "/").map { $0 + 2 } ?? 0
        let authorityEnd = characters[schemeEnd...].firstIndex { $0 == "/" || $0 == "?" } ?? characters.endIndex
        if let at = characters[schemeEnd..<authorityEnd].lastIndex(of: "@"),
           let colon = characters[schemeEnd..<at].firstIndex(of: ":")
        {
            characters.replaceSubrange((colon + 1)..<at, with: Array(mask))
        }
        guard let question = characters.firstIndex(of: "?") else { return String(characters) }
        let query = String(characters[(question + 1)...]).split(separator: "&", omittingEmptySubsequences: false).map { pair in
            pair.hasPrefix("password=") ? "password=" + mask : String(pair)
        }
        return String(characters[...question]) + query.joined(separator: "&")
    }

    /// `host=/run/pg password='a b' user=x` → `host=/run/pg password=*** user=x` (libpq's syntax:
    /// keyword, optional spaces, `=`, optional spaces, a bare value or one in single quotes with
    /// backslash escapes).
    static func maskedKeywords(_ text: String) -> String {
        let characters = Array(text)
        var output = ""
        var index = 0
        func skipSpaces() {
            while index < characters.count, characters[index].isWhitespace {
                output.append(characters[index])
                index += 1
            }
        }
        while index < characters.count {
            skipSpaces()
            var keyword = ""
            while index < characters.count, characters[index] != "=", !characters[index].isWhitespace {
                keyword.append(characters[index])
                index += 1
            }
            output += keyword
            skipSpaces()
            guard index < characters.count, characters[index] == "=" else { continue }
            output.append("=")
            index += 1
            skipSpaces()
            var value = ""
            if index < characters.count, characters[index] == "'" {
                value.append("'")
                index += 1
                while index < characters.count, characters[index] != "'" {
                    if characters[index] == "\\", index + 1 < characters.count {
                        value.append(characters[index])
                        index += 1
                    }
                    value.append(characters[index])
                    index += 1
                }
                if index < characters.count {
                    value.append("'")
                    index += 1
                }
            } else {
                while index < characters.count, !characters[index].isWhitespace {
                    value.append(characters[index])
                    index += 1
                }
            }
            output += keyword == "password" ? mask : value
        }
        return output
    }
}
