import CLibpq

/// The options a connection string sets, as libpq itself reads them (`PQconninfoParse`: a
/// key=value string or a URI, percent-decoding included), and which of them libpq marks secret
/// (`dispchar` `*`: `password`, `sslpassword`, and whatever a later libpq adds).
public struct PostgresConnectionOptions: Sendable, Equatable {
    public struct Option: Sendable, Equatable {
        public let keyword: String
        public let value: String
        public let isSecret: Bool
    }

    /// The options set, in libpq's order.
    public let options: [Option]
    /// Every keyword libpq marks secret, set or not.
    public let secretKeywords: Set<String>

    public init(options: [Option], secretKeywords: Set<String>) {
        self.options = options
        self.secretKeywords = secretKeywords
    }

    public subscript(keyword: String) -> String? {
        options.first { $0.keyword == keyword }?.value
    }

    /// The values of the secret options that are set (not empty).
    public var secretValues: [String] {
        options.filter { $0.isSecret && !$0.value.isEmpty }.map(\.value)
    }

    /// libpq's reading of `connectionString`, or what is wrong with it (never quoting its text).
    public static func parse(_ connectionString: String) throws(PostgresConfigurationError) -> PostgresConnectionOptions {
        var message: UnsafeMutablePointer<CChar>?
        guard let parsed = PQconninfoParse(connectionString, &message) else {
            let text = message.map { String(cString: $0) } ?? "out of memory"
            if let message { PQfreemem(message) }
            throw .unparsable(PostgresConnectionString.withoutQuotedText(text.trimmingTrailingNewlines))
        }
        defer { PQconninfoFree(parsed) }
        var options: [Option] = []
        var secretKeywords: Set<String> = ["password", "sslpassword"]
        var option = parsed
        while let keyword = option.pointee.keyword {
            let name = String(cString: keyword)
            let secret = option.pointee.dispchar.map { String(cString: $0).contains("*") } ?? false
            if secret { secretKeywords.insert(name) }
            if let value = option.pointee.val {
                options.append(Option(keyword: name, value: String(cString: value), isSecret: secret || secretKeywords.contains(name)))
            }
            option += 1
        }
        return PostgresConnectionOptions(options: options, secretKeywords: secretKeywords)
    }
}
