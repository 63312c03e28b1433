/// What a connection string looks like in logs: the same text with the value of every option libpq
/// marks secret (`PQconninfoParse`'s `dispchar` `*`: `password`, `sslpassword`) replaced by `***`
/// (`password=…` in the key=value form; `user:…@` and `?password=…` / `?sslpassword=…` in a URI,
/// keys percent-decoded). A string libpq cannot parse is never shown, only that it cannot be; and
/// should a secret value still appear in the masked text (a form this masking does not foresee, or
/// the value inside another option), libpq's own reading is shown instead, rebuilt as key=value
/// with the secrets masked and every occurrence of a secret value elsewhere too.
public enum PostgresConnectionString {
    public static let mask = "***"
    public static let unparsable = "(a connection string libpq cannot parse)"

    public static func masked(_ connectionString: String) -> String {
        guard let options = try? PostgresConnectionOptions.parse(connectionString) else { return unparsable }
        let text = connectionString
        let isURI = text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
        let shown = isURI ? maskedURI(text, secret: options.secretKeywords) : maskedKeywords(text, secret: options.secretKeywords)
        if options.secretValues.contains(where: { shown.contains($0) || shown.contains(percentEncodedForm($0)) }) {
            return scrubbed(rebuilt(options), secrets: options.secretValues)
        }
        return shown
    }

    /// `message` with every secret value of `options` replaced by `***` (for libpq's messages).
    public static func scrubbed(_ message: String, secrets: [String]) -> String {
        var text = message
        for secret in secrets.sorted(by: { $0.count > $1.count }) where !secret.isEmpty {
            text = text.replacingEvery(secret, with: mask)
        }
        return text
    }

    /// libpq's message about a string it cannot parse, with every quoted part (libpq quotes the
    /// text, which may hold a password) shown as `"…"`; a quoted single punctuation mark (`"="`,
    /// `"]"`) stays.
    public static func withoutQuotedText(_ message: String) -> String {
        var output = ""
        var quoted: String?
        for character in message {
            if character == "\"" {
                if let part = quoted {
                    let keep = part.count == 1 && part.allSatisfy { $0.isPunctuation || $0.isSymbol }
                    output += "\"" + (keep ? part : "…") + "\""
                    quoted = nil
                } else {
                    quoted = ""
                }
            } else if quoted != nil {
                quoted!.append(character)
            } else {
                output.append(character)
            }
        }
        if quoted != nil { output += "\"…" }
        return output
    }

    /// libpq's reading as `keyword=value …` (values quoted when needed), secrets masked.
    static func rebuilt(_ options: PostgresConnectionOptions) -> String {
        options.options.map { option in
            guard !option.isSecret else { return option.keyword + "=" + mask }
            let plain = !option.value.isEmpty && !option.value.contains { $0.isWhitespace || $0 == "'" || $0 == "\\" }
            if plain { return option.keyword + "=" + option.value }
            var quoted = "'"
            for character in option.value {
                if character == "'" || character == "\\" { quoted.append("\\") }
                quoted.append(character)
            }
            return option.keyword + "=" + quoted + "'"
        }.joined(separator: " ")
    }

    /// `postgresql://user:secret@host/db?password=secret` → `postgresql://user:***@host/db?password=***`.
    static func maskedURI(_ uri: String, secret: Set<String>) -> String {
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
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let key = percentDecoded(String(pair[..<equals]))
            return secret.contains(key) ? String(pair[...equals]) + mask : String(pair)
        }
        return String(characters[...question]) + query.joined(separator: "&")
    }

    /// `host=/run/pg password='a b' user=x` → `host=/run/pg password=*** user=x` (libpq's syntax:
    /// keyword, optional spaces, `=`, optional spaces, a bare value or one in single quotes with
    /// backslash escapes).
    static func maskedKeywords(_ text: String, secret: Set<String>) -> String {
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
            output += secret.contains(keyword) ? mask : value
        }
        return output
    }

    /// `%xx` decoded (UTF-8); anything else kept.
    static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Every byte as `%XX`: how a secret could hide in a URI from a plain search.
    static func percentEncodedForm(_ text: String) -> String {
        text.utf8.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return "%" + (hex.count == 1 ? "0" + hex : hex)
        }.joined()
    }
}

extension String {
    /// Every occurrence of `target` replaced by `replacement` (no Foundation).
    func replacingEvery(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var output = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            output += rest[..<range.lowerBound]
            output += replacement
            rest = rest[range.upperBound...]
        }
        return output + rest
    }
}
