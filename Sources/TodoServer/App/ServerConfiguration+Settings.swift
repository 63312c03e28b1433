import Logging
import TodoData

/// One setting, declared once: its key (the file key; the flag and `TODO_*` variable are derived
/// from it), help, type, what a valid value is, and how it lands in `ServerConfiguration`.
struct Setting {
    /// The JSON type the file must use; flags and variables always give text.
    enum Kind {
        case integer, string, boolean
        /// A comma-separated string, or (in the file) an array of strings.
        case list
    }

    let key: String
    let kind: Kind
    let help: String
    /// Secrets (tokens) are never shown: not in errors, not in the configuration dump.
    let secret: Bool
    /// What a valid value is, for errors: "an integer from 0 to 65535".
    let expected: String
    /// Stores `text` in the configuration; returns what was expected when it is not valid.
    let apply: (inout ServerConfiguration, String) -> String?
    /// The value as the dump shows it (secrets by count only).
    let render: (ServerConfiguration) -> String
    /// Whether a value of only white space is refused (the token settings: an empty secret must
    /// not run the server open).
    var refusesBlank = false

    var flag: String { "--" + ServerConfiguration.flagName(key) }
    var environmentVariable: String { ServerConfiguration.environmentName(key) }

    /// The help with the default value, as `--help` shows it (a secret's default is not shown).
    var helpWithDefault: String {
        let value = render(ServerConfiguration())
        return help + (value.isEmpty || secret ? "" : " (default \(value))")
    }
}

extension ServerConfiguration {
    /// Every setting, in the order the dump and the README list them.
    static var settings: [Setting] {
        [
            .text("host", \.host, "Address to bind; 0.0.0.0 for every interface.", expected: "a host name or address") { !$0.isEmpty },
            .integer("port", \.port, 0...65_535, "Port to bind; 0 picks a free one."),
            .integer("threads", \.threads, 0...1024, "Event-loop threads; 0 is one per core."),
            .integer("maxBodyBytes", \.maxBodyBytes, 1...(1 << 30), "Largest request body in bytes."),
            .integer("maxHeaderBytes", \.maxHeaderBytes, 1024...(1 << 24), "Largest request line plus headers in bytes."),
            .integer("maxUriBytes", \.maxURIBytes, 64...(1 << 24), "Longest request target in bytes."),
            .integer("maxHeaderCount", \.maxHeaderCount, 8...10_000, "Most header fields in one request."),
            .integer("maxConnections", \.maxConnections, 1...1_000_000, "Open connections the server holds."),
            .integer("timeoutSeconds", \.timeoutSeconds, 1...86_400, "Connection read/write time-out in seconds."),
            .integer(
                "maxPipelinedRequests", \.maxPipelinedRequests, 1...1024,
                "Requests received on one connection and not yet answered before it is no longer read."),
            .integer(
                "maxOutputBytes", \.maxOutputBytes, 4096...(1 << 30), "Unsent answer bytes of one connection before it is no longer read."),
            .integer(
                "minBodyBytesPerSecond", \.minBodyBytesPerSecond, 0...(1 << 30),
                "Least bytes per second a request body must average after its grace period (408 below); 0 is no minimum."),
            .integer(
                "bodyRateGraceSeconds", \.bodyRateGraceSeconds, 1...86_400,
                "Seconds from a request's head before its body must average minBodyBytesPerSecond."),
            .boolean(
                "writeAtTurnEnd", \.writeAtTurnEnd,
                "Write the answers of one event-loop turn together at its end; false writes each at once."),
            .text(
                "corsOrigin", \.corsOrigin, "* or a comma-separated list of origins allowed to call from a browser.",
                expected: "* or a comma-separated list of origins such as https://app.example.com or null"
            ) { CORSPolicy.AllowedOrigins(parsing: $0) != nil },
            .boolean("corsCredentials", \.corsCredentials, "Send Access-Control-Allow-Credentials: true to listed origins."),
            .integer("corsMaxAgeSeconds", \.corsMaxAgeSeconds, 0...(86_400 * 7), "Access-Control-Max-Age of preflights in seconds."),
            .optionalText(
                "publicUrl", \.publicURL, "Base of absolute URLs, such as https://todo.example.com (default: from Host).",
                expected: "an http:// or https:// URL"
            ) { url in
                guard url.hasPrefix("http://") || url.hasPrefix("https://") else { return nil }
                return String(url.trimmingSuffix("/"))
            },
            .text("timeZone", \.timeZone, "Default IANA time zone of /todos/upcoming.", expected: "an IANA time zone such as Europe/Berlin")
            {
                IANATimeZone(identifier: $0) != nil
            },
            .choice("logLevel", \.logLevel, "Log level; trace and debug add request headers and decisions."),
            .choice("logFormat", \.logFormat, "Log lines as text or as one JSON object per line."),
            .integer(
                "logBufferBytes", \.logBufferBytes, 4096...(1 << 30),
                "Log bytes held while stdout is not read; more are dropped and counted."),
            .integer(
                "logFlushMilliseconds", \.logFlushMilliseconds, 0...1000,
                "Milliseconds log lines may wait to be written together; 0 writes each at once."),
            .integer("shutdownGraceSeconds", \.shutdownGraceSeconds, 0...3600, "Seconds shutdown waits for requests in flight."),
            .optionalText(
                "dataDir", \.dataDirectory, "Directory for the journal and snapshots; unset keeps to-dos in memory only.",
                expected: "a directory path"
            ) {
                $0.contains("\0") ? nil : $0
            },
            .databaseURL(),
            .integer(
                "databaseConnectionsPerLoop", \.databaseConnectionsPerLoop, 1...64,
                "PostgreSQL connections each event loop keeps (with databaseUrl)."),
            .integer(
                "databasePipelineDepth", \.databasePipelineDepth, 1...1024,
                "Requests one PostgreSQL connection holds in flight; more wait in the loop's queues (reads for its first connection while it answers, writes for any with room)."
            ),
            .integer(
                "databaseReadPipelineDepth", \.databaseReadPipelineDepth, 1...1024,
                "Reads the PostgreSQL connection a loop's reads go to holds in flight; more wait in the loop's queue for it while it answers."
            ),
            .integer(
                "databaseInsertBatch", \.databaseInsertBatch, 1...1000,
                "The most to-dos one PostgreSQL insert statement makes: POSTs that arrive while all of a loop's connections have an insert in flight go together in the next (1: each alone)."
            ),
            .integer(
                "databaseReadSpillMilliseconds", \.databaseReadSpillMilliseconds, 0...500,
                "Milliseconds a loop's first PostgreSQL connection, full, may go without answering before reads go to its next connection (0: reads go to any connection with room; 500 ms without an answer counts as stalled)."
            ),
            .integer(
                "databaseTimeoutMs", \.databaseTimeoutMs, 10...600_000,
                "Milliseconds a request waits for PostgreSQL before it gets a 503 with Retry-After and the connection is recycled."),
            .integer(
                "databaseClearLockWaitMilliseconds", \.databaseClearLockWaitMilliseconds, 0...600_000,
                "Milliseconds DELETE /todos waits for PostgreSQL writes in progress to end (the to-do table's lock; writes that come meanwhile wait behind it) before it gets a 503 with Retry-After (0: up to databaseTimeoutMs)."
            ),
            .choice("fsync", \.fsync, "When journal writes reach the disk."),
            .integer("compactionBytes", \.compactionBytes, 4096...(1 << 40), "Journal size in bytes that triggers a snapshot."),
            .choice(
                "recover", \.recovery,
                "A damaged or missing journal or snapshot: off refuses to start, truncate keeps what precedes the damage and moves the damaged files aside."
            ),
            .tokens(
                "authTokens", \.authTokens,
                "Comma-separated bearer tokens that may read and write; once set, every request needs a token (a flag shows in ps: prefer TODO_AUTH_TOKENS or a file)."
            ),
            .tokens("readTokens", \.readTokens, "Comma-separated bearer tokens that may only read (GET, HEAD)."),
            .tokensFile("authTokensFile", \.authTokens, "File of read-write tokens, one per line (a container secret)."),
            .tokensFile("readTokensFile", \.readTokens, "File of read-only tokens, one per line."),
            .ownerTokens(
                "ownerTokens",
                "Comma-separated owner:token pairs: each token reads and writes its owner's to-dos only (owner: 1-128 of A-Z a-z 0-9 . _ @ -); prefer TODO_OWNER_TOKENS or a file."
            ),
            .ownerTokensFile("ownerTokensFile", "File of owner:token pairs, one per line (a container secret)."),
            .optionalText(
                "jwtJwksFile", \.jwtJwksFile,
                "JWK Set file of the OpenID Connect provider whose JSON Web Tokens are accepted (each reads and writes its owner's to-dos); read again when it changes.",
                expected: "a file path"
            ) {
                $0.contains("\0") ? nil : $0
            },
            .optionalText(
                "jwtJwksUrl", \.jwtJwksUrl,
                "URL of the OpenID Connect provider's JWK Set (its jwks_uri), instead of jwtJwksFile: fetched over HTTPS at start, again as its Cache-Control says (else every 10 minutes) and on a token's unknown kid.",
                expected: "an https:// URL (http:// only on 127.0.0.1, ::1 or localhost)"
            ) {
                JWKSURLSource.isAcceptableURL($0) ? $0 : nil
            },
            .optionalText(
                "jwtJwksCaFile", \.jwtJwksCaFile,
                "PEM file of the certificate authorities trusted for jwtJwksUrl (default: the system's).", expected: "a file path"
            ) {
                $0.contains("\0") ? nil : $0
            },
            .integer(
                "jwtJwksMinRefreshSeconds", \.jwtJwksMinRefreshSeconds, 1...86_400,
                "Least time between two fetches of jwtJwksUrl, in seconds (a token's unknown kid fetches again at most this often)."),
            .integer("jwtJwksTimeoutSeconds", \.jwtJwksTimeoutSeconds, 1...300, "Longest one fetch of jwtJwksUrl takes, in seconds."),
            .optionalText(
                "jwtIssuer", \.jwtIssuer, "The iss a JSON Web Token must carry (required with jwtJwksFile or jwtJwksUrl).",
                expected: "an issuer"
            ) {
                $0
            },
            .optionalText(
                "jwtAudience", \.jwtAudience, "The audience a JSON Web Token's aud must name (required with jwtJwksFile or jwtJwksUrl).",
                expected: "an audience"
            ) { $0 },
            .text(
                "jwtOwnerClaim", \.jwtOwnerClaim, "The JSON Web Token claim that names the owner.",
                expected: "a claim name (letters, digits and _ : . -) such as sub or oid, one the provider never lets a user choose"
            ) { name in
                !name.isEmpty && name.utf8.count <= 128
                    && name.utf8.allSatisfy { byte in
                        switch byte {
                        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                            UInt8(ascii: "0")...UInt8(ascii: "9"):
                            true
                        default:
                            byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
                        }
                    }
            },
            .integer("jwtLeewaySeconds", \.jwtLeewaySeconds, 0...3600, "Clock skew allowed on a JSON Web Token's exp and nbf, in seconds."),
            .boolean("metricsPublic", \.metricsPublic, "Serve /metrics without a token when tokens are on."),
            .integer(
                "eventsRetained", \.eventsRetained, 1...10_000_000,
                "Changes kept for the live feed's replay (Last-Event-ID); older positions get a resync."),
            .integer(
                "eventsHeartbeatSeconds", \.eventsHeartbeatSeconds, 1...3600,
                "Longest silence on a live feed stream before a keep-alive comment."),
            .integer(
                "eventsMaxSubscribers", \.eventsMaxSubscribers, 0...1_000_000,
                "Live feed streams held at once; more get 503 with Retry-After."),
            .integer(
                "eventsMaxBufferedBytes", \.eventsMaxBufferedBytes, 4096...(1 << 30),
                "Unsent bytes of one feed stream before its subscriber is cut off (it resumes with Last-Event-ID)."),
            .integer(
                "eventsBatchMilliseconds", \.eventsBatchMilliseconds, 0...1000,
                "How long changes wait after a feed stream was sent a batch, to go out together (0: each at once)."),
            .integer(
                "eventsLoopSharePercent", \.eventsLoopSharePercent, 1...100,
                "The most of a loop's time (1-100 %) the live feed takes in a write storm (changes coming faster than a pass sends them: each slice rests before the next): the rest goes to requests; subscribers that fall behind the retained changes get a resync (100: no limit)."
            ),
            .integer(
                "eventsPollMilliseconds", \.eventsPollMilliseconds, 10...60_000,
                "How often an instance reads the changes other instances made, unasked (with databaseUrl; they also tell it at once with NOTIFY)."
            ),
            .integer(
                "eventsReadGapMilliseconds", \.eventsReadGapMilliseconds, 0...1000,
                "The least time between two reads of the change table (with databaseUrl): under a stream of writes one read takes them together; a change after a quiet spell is read at once (0: a read after every write)."
            ),
        ]
    }

    /// A setting's help with its default, for `--help`.
    public static func help(for key: String) -> String {
        guard let setting = settings.first(where: { $0.key == key }) else { return "" }
        return setting.helpWithDefault
    }

    /// Every setting as the command line offers it, in the table's order: its key, its long flag's
    /// name (`max-body-bytes` for `--max-body-bytes`) and its help with the default.
    public static var flags: [(key: String, name: String, help: String)] {
        settings.map { ($0.key, flagName($0.key), $0.helpWithDefault) }
    }

    /// The keys of every setting, as the file spells them.
    public static var settingKeys: [String] { settings.map(\.key) }

    /// Each set key with its value (secrets as a count) and source, for the debug dump.
    public var dump: [(key: String, value: String, source: String)] {
        Self.settings.map { setting in
            (setting.key, setting.render(self), provenance.sources[setting.key].map(\.description) ?? "default")
        }
    }
}

extension Setting {
    static func integer(
        _ key: String, _ path: WritableKeyPath<ServerConfiguration, Int>, _ range: ClosedRange<Int>, _ help: String
    ) -> Setting {
        Setting(
            key: key, kind: .integer, help: help, secret: false,
            expected: "an integer from \(range.lowerBound) to \(range.upperBound)",
            apply: { configuration, text in
                guard let value = Int(text), range.contains(value) else {
                    return "an integer from \(range.lowerBound) to \(range.upperBound)"
                }
                configuration[keyPath: path] = value
                return nil
            },
            render: { String($0[keyPath: path]) })
    }

    static func text(
        _ key: String, _ path: WritableKeyPath<ServerConfiguration, String>, _ help: String, expected: String,
        valid: @escaping (String) -> Bool
    ) -> Setting {
        Setting(
            key: key, kind: .string, help: help, secret: false, expected: expected,
            apply: { configuration, text in
                guard valid(text) else { return expected }
                configuration[keyPath: path] = text
                return nil
            },
            render: { $0[keyPath: path] })
    }

    /// A string where empty means unset; `transform` returns nil for an invalid value.
    static func optionalText(
        _ key: String, _ path: WritableKeyPath<ServerConfiguration, String?>, _ help: String, expected: String,
        transform: @escaping (String) -> String?
    ) -> Setting {
        Setting(
            key: key, kind: .string, help: help, secret: false, expected: expected,
            apply: { configuration, text in
                if text.isEmpty {
                    configuration[keyPath: path] = nil
                    return nil
                }
                guard let value = transform(text) else { return expected }
                configuration[keyPath: path] = value
                return nil
            },
            render: { $0[keyPath: path] ?? "" })
    }

    static func choice<Value: RawRepresentable<String> & CaseIterable>(
        _ key: String, _ path: WritableKeyPath<ServerConfiguration, Value>, _ help: String
    ) -> Setting {
        let names = Value.allCases.map(\.rawValue)
        let expected = "one of " + names.joined(separator: ", ")
        return Setting(
            key: key, kind: .string, help: help + " One of " + names.joined(separator: ", ") + ".", secret: false, expected: expected,
            apply: { configuration, text in
                guard let value = Value(rawValue: text) else { return expected }
                configuration[keyPath: path] = value
                return nil
            },
            render: { $0[keyPath: path].rawValue })
    }

    static func boolean(_ key: String, _ path: WritableKeyPath<ServerConfiguration, Bool>, _ help: String) -> Setting {
        Setting(
            key: key, kind: .boolean, help: help, secret: false, expected: "true or false",
            apply: { configuration, text in
                switch text {
                case "true": configuration[keyPath: path] = true
                case "false": configuration[keyPath: path] = false
                default: return "true or false"
                }
                return nil
            },
            render: { String($0[keyPath: path]) })
    }

    /// RFC 6750 `b64token` characters, which a bearer token is made of.
    static func isValidToken(_ token: String) -> Bool {
        guard !token.isEmpty else { return false }
        let body = token.utf8.reversed().drop(while: { $0 == UInt8(ascii: "=") })
        return !body.isEmpty
            && body.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default: "-._~+/".utf8.contains(byte)
                }
            }
    }

    static let tokenExpectation = "bearer tokens (letters, digits and -._~+/ with optional trailing =), separated by commas"

    static func tokens(_ key: String, _ path: WritableKeyPath<ServerConfiguration, [String]>, _ help: String) -> Setting {
        Setting(
            key: key, kind: .list, help: help, secret: true, expected: tokenExpectation,
            apply: { configuration, text in
                let tokens = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingWhitespace() }
                if text.trimmingWhitespace().isEmpty {
                    configuration[keyPath: path] = []
                    return nil
                }
                guard tokens.allSatisfy(isValidToken) else { return tokenExpectation }
                configuration[keyPath: path] = tokens
                return nil
            },
            render: { "\($0[keyPath: path].count) tokens" }, refusesBlank: true)
    }

    /// Why a file of secrets was not taken: what was expected, and why not.
    struct FileProblem: Error {
        let text: String
    }

    /// The lines of a file of secrets (a container secret: tokens, `owner:token` pairs), trimmed,
    /// blank lines and `#` comments skipped; at least one.
    static func secretLines(_ filePath: String, expected: String, holdsNo what: String) -> Result<[String], FileProblem> {
        let bytes: [UInt8]
        switch ConfigurationFile.read(filePath) {
        case .success(let read): bytes = read
        case .failure(let reason): return .failure(FileProblem(text: "\(expected) (\(reason))"))
        }
        let lines = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        return lines.isEmpty ? .failure(FileProblem(text: "\(expected) (the file holds no \(what))")) : .success(lines)
    }

    /// A file of tokens, one per line (blank lines and `#` comments skipped), added to `path`.
    static func tokensFile(_ key: String, _ path: WritableKeyPath<ServerConfiguration, [String]>, _ help: String) -> Setting {
        let expected = "a readable file of bearer tokens, one per line"
        return Setting(
            key: key, kind: .string, help: help, secret: false, expected: expected,
            apply: { configuration, filePath in
                if filePath.isEmpty { return nil }
                let lines: [String]
                switch secretLines(filePath, expected: expected, holdsNo: "token") {
                case .success(let read): lines = read
                case .failure(let problem): return problem.text
                }
                guard let bad = lines.firstIndex(where: { !isValidToken($0) }) else {
                    configuration[keyPath: path] += lines
                    return nil
                }
                return "\(expected) (token \(bad + 1) has a character a bearer token cannot have)"
            },
            render: { _ in "" }, refusesBlank: true)
    }
}

extension Setting {
    static let ownerTokenExpectation =
        "owner:token pairs separated by commas (owner: 1-128 of A-Z a-z 0-9 . _ @ -; token: letters, digits and -._~+/ with optional trailing =)"

    /// `owner:token` (the owner is everything before the first `:`), nil when either part is not valid.
    static func ownerToken(_ pair: String) -> OwnerToken? {
        guard let colon = pair.firstIndex(of: ":") else { return nil }
        let token = String(pair[pair.index(after: colon)...])
        guard let owner = Owner(name: String(pair[..<colon])), isValidToken(token) else { return nil }
        return OwnerToken(owner: owner, token: token)
    }

    static func ownerTokens(_ key: String, _ help: String) -> Setting {
        Setting(
            key: key, kind: .list, help: help, secret: true, expected: ownerTokenExpectation,
            apply: { configuration, text in
                if text.trimmingWhitespace().isEmpty { return nil }
                let pairs = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingWhitespace() }
                var tokens: [OwnerToken] = []
                for (index, pair) in pairs.enumerated() {
                    // The pair's place, never its text: the token is a secret.
                    guard let token = ownerToken(pair) else { return "\(ownerTokenExpectation) (pair \(index + 1) is not)" }
                    tokens.append(token)
                }
                configuration.ownerTokens += tokens
                return nil
            },
            render: { "\($0.ownerTokens.count) owner tokens" }, refusesBlank: true)
    }

    /// A file of `owner:token` pairs, one per line (blank lines and `#` comments skipped).
    static func ownerTokensFile(_ key: String, _ help: String) -> Setting {
        let expected = "a readable file of owner:token pairs, one per line"
        return Setting(
            key: key, kind: .string, help: help, secret: false, expected: expected,
            apply: { configuration, filePath in
                if filePath.isEmpty { return nil }
                let lines: [String]
                switch secretLines(filePath, expected: expected, holdsNo: "pair") {
                case .success(let read): lines = read
                case .failure(let problem): return problem.text
                }
                var tokens: [OwnerToken] = []
                for (index, line) in lines.enumerated() {
                    guard let token = ownerToken(line) else {
                        return "\(expected) (pair \(index + 1) is not owner:token with a valid owner name and token)"
                    }
                    tokens.append(token)
                }
                configuration.ownerTokens += tokens
                return nil
            },
            render: { _ in "" }, refusesBlank: true)
    }
}
