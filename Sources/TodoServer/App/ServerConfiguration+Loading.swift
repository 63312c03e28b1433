import FoundationEssentials
import Logging
import TodoData

extension ServerConfiguration {
    /// The file read when neither `--config` nor `TODO_CONFIG` names one.
    public static let defaultFilePath = "Config/todo-server.json"

    /// Reads the layers in order of strength: flags (keyed by setting key, as typed), then `TODO_*`
    /// environment variables, then the JSON file, then the built-in defaults. The file is parsed as
    /// strictly as request bodies: a wrong type, a value out of range, an unknown key, a duplicate
    /// key or a trailing comma is an error naming the key, the value and the one source that set it.
    /// Relative paths are taken from `workingDirectory`.
    public static func load(
        flags: [String: String], environment: [String: String], filePath: String?,
        workingDirectory: String = FileManager.default.currentDirectoryPath
    ) throws(ConfigurationError) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        let file = try ConfigurationFile.load(
            explicitPath: filePath ?? environment["TODO_CONFIG"],
            explicitSource: filePath != nil ? .flag("--config") : .environment("TODO_CONFIG"),
            defaultPath: defaultFilePath, workingDirectory: workingDirectory)
        configuration.provenance.file = file.status
        let settings = Self.settings
        for key in file.members.keys.sorted() where !settings.contains(where: { $0.key == key }) {
            let suggestion = closestKey(to: key, among: settings.map(\.key)).map { " (did you mean '\($0)'?)" } ?? ""
            throw ConfigurationError(key: key, problem: "'\(key)' in \(file.path) is not a setting\(suggestion)", source: nil)
        }
        configuration.provenance.ignoredVariables = ignoredVariables(in: environment, settings: settings)
        for setting in settings {
            let given: (value: GivenValue, source: ConfigurationSource)
            if let text = flags[setting.key] {
                given = (.text(text), .flag(setting.flag))
            } else if let text = environment[setting.environmentVariable] {
                given = (.text(text), .environment(setting.environmentVariable))
            } else if let json = file.members[setting.key] {
                given = (.json(json), .file(key: setting.key, path: file.path))
            } else {
                continue
            }
            configuration.provenance.sources[setting.key] = given.source
            if setting.refusesBlank, given.value.isBlank(for: setting.kind) {
                // A secret that did not make it into the environment must not open the server.
                throw ConfigurationError(
                    key: setting.key,
                    problem: "'\(setting.key)' is set but empty or white space: give it a value, or unset it to run without tokens",
                    source: given.source)
            }
            let shown = setting.secret ? "(a value not shown)" : given.value.shown
            guard let text = given.value.text(as: setting.kind) else {
                throw ConfigurationError(key: setting.key, value: shown, expected: setting.expected, source: given.source)
            }
            if let expected = setting.apply(&configuration, text) {
                throw ConfigurationError(key: setting.key, value: shown, expected: expected, source: given.source)
            }
        }
        try configuration.checkCombinations()
        return configuration
    }

    /// The `TODO_*` variables in `environment` that no setting (nor `TODO_CONFIG`) reads.
    static func ignoredVariables(in environment: [String: String], settings: [Setting]) -> [ConfigurationProvenance.IgnoredVariable] {
        let known = ["TODO_CONFIG"] + settings.map(\.environmentVariable)
        return environment.keys.filter { $0.hasPrefix("TODO_") && !known.contains($0) }.sorted().map { name in
            .init(name: name, suggestion: closestKey(to: name, among: known))
        }
    }

    /// Rules between settings, reported against the key whose source set it.
    private func checkCombinations() throws(ConfigurationError) {
        try checkOwnerTokens()
        if maxURIBytes >= maxHeaderBytes {
            if let source = provenance.sources["maxUriBytes"] {
                throw ConfigurationError(
                    key: "maxUriBytes", value: Self.shown(String(maxURIBytes), source),
                    expected: "less than maxHeaderBytes (\(maxHeaderBytes))", source: source)
            }
            if let source = provenance.sources["maxHeaderBytes"] {
                throw ConfigurationError(
                    key: "maxHeaderBytes", value: Self.shown(String(maxHeaderBytes), source),
                    expected: "more than maxUriBytes (\(maxURIBytes))", source: source)
            }
        }
        if databaseURL != nil, dataDirectory != nil,
            let databaseSource = provenance.sources["databaseUrl"], let directorySource = provenance.sources["dataDir"]
        {
            throw ConfigurationError(
                key: "databaseUrl",
                problem:
                    "'databaseUrl' (set by \(databaseSource)) and 'dataDir' (set by \(directorySource)) choose two stores: set only one of them",
                source: nil)
        }
        if corsCredentials, case .list(let origins) = CORSPolicy.AllowedOrigins(parsing: corsOrigin), origins.contains("null"),
            let source = provenance.sources["corsCredentials"]
        {
            throw ConfigurationError(
                key: "corsCredentials", value: Self.shown("true", source),
                expected: "false while corsOrigin lists null (every file:// page and sandboxed frame sends Origin: null)",
                source: source)
        }
        if corsCredentials, CORSPolicy.AllowedOrigins(parsing: corsOrigin) == .any, let source = provenance.sources["corsCredentials"] {
            throw ConfigurationError(
                key: "corsCredentials", value: Self.shown("true", source),
                expected: "false while corsOrigin is * (list the origins that may send credentials in corsOrigin)", source: source)
        }
    }

    /// A token names one owner, and is either an owner's or a plain one: an error names the
    /// setting and the owners, never the token. Every store keeps owners (memory, journal, PostgreSQL).
    private func checkOwnerTokens() throws(ConfigurationError) {
        try checkJWT()
        guard hasOwners else { return }
        let key =
            ownerTokens.isEmpty
            ? (jwtJwksFile != nil ? "jwtJwksFile" : "jwtJwksUrl")
            : provenance.sources["ownerTokens"] != nil ? "ownerTokens" : "ownerTokensFile"
        let source = provenance.sources[key]
        var owners: [String: Owner] = [:]
        for entry in ownerTokens {
            if let first = owners[entry.token], first != entry.owner {
                throw ConfigurationError(
                    key: key,
                    problem: "'\(key)' gives one token to two owners (\(first.name) and \(entry.owner.name)): give each owner its own",
                    source: source)
            }
            owners[entry.token] = entry.owner
        }
        let plain = Set(authTokens + readTokens)
        if let shared = ownerTokens.first(where: { plain.contains($0.token) }) {
            throw ConfigurationError(
                key: key,
                problem:
                    "'\(key)' gives \(shared.owner.name) a token that authTokens or readTokens also lists: a token is an owner's or the shared list's, not both",
                source: source)
        }
    }

    /// `jwtIssuer` and `jwtAudience` go with a JWK Set (`jwtJwksFile` or `jwtJwksUrl`, not both);
    /// a file holds a usable JWK Set; a URL is https (http only on loopback) and its CA file, if
    /// any, is readable.
    private func checkJWT() throws(ConfigurationError) {
        if jwtJwksFile != nil, jwtJwksUrl != nil {
            throw ConfigurationError(
                key: "jwtJwksUrl", problem: "'jwtJwksUrl' and 'jwtJwksFile' are both set: keys come from one place, unset one",
                source: provenance.sources["jwtJwksUrl"])
        }
        if jwtJwksCaFile != nil, jwtJwksUrl == nil {
            throw ConfigurationError(
                key: "jwtJwksCaFile", problem: "'jwtJwksCaFile' is set without 'jwtJwksUrl': it names whom to trust for that URL",
                source: provenance.sources["jwtJwksCaFile"])
        }
        guard acceptsJWTs else {
            for key in ["jwtIssuer", "jwtAudience"] where (key == "jwtIssuer" ? jwtIssuer : jwtAudience) != nil {
                throw ConfigurationError(
                    key: key,
                    problem: "'\(key)' is set without 'jwtJwksFile' or 'jwtJwksUrl': name the provider's JWK Set too, or unset it",
                    source: provenance.sources[key])
            }
            return
        }
        let setKey = jwtJwksFile != nil ? "jwtJwksFile" : "jwtJwksUrl"
        for key in ["jwtIssuer", "jwtAudience"] where (key == "jwtIssuer" ? jwtIssuer : jwtAudience) == nil {
            throw ConfigurationError(
                key: key, problem: "'\(setKey)' needs '\(key)' too: a token is accepted only for this server's issuer and audience",
                source: provenance.sources[setKey])
        }
        if let caFile = jwtJwksCaFile, case .failure(let reason) = ConfigurationFile.read(caFile) {
            throw ConfigurationError(
                key: "jwtJwksCaFile", problem: "'jwtJwksCaFile' is '\(caFile)' but must be a readable PEM file (\(reason))",
                source: provenance.sources["jwtJwksCaFile"])
        }
        guard let file = jwtJwksFile else { return }
        let source = provenance.sources["jwtJwksFile"]
        let bytes: [UInt8]
        switch ConfigurationFile.read(file) {
        case .success(let read): bytes = read
        case .failure(let reason):
            throw ConfigurationError(
                key: "jwtJwksFile", problem: "'jwtJwksFile' is '\(file)' but must be a readable JWK Set file (\(reason))", source: source)
        }
        if case .failure(let failure) = JWKSet.parse(bytes) {
            throw ConfigurationError(
                key: "jwtJwksFile", problem: "'jwtJwksFile' is '\(file)' but must be a JWK Set (\(failure.description))", source: source)
        }
    }

    /// A value as an error shows it: quoted when typed as text, JSON when it came from the file.
    private static func shown(_ text: String, _ source: ConfigurationSource) -> String {
        if case .file = source { return text }
        return "'\(text)'"
    }

    /// The key within two edits of `key` (ignoring case), for "did you mean".
    static func closestKey(to key: String, among keys: [String]) -> String? {
        let scored = keys.map { ($0, editDistance(Array(key.lowercased()), Array($0.lowercased()))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= 2 else { return nil }
        return best.0
    }

    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// `maxBodyBytes` → `max-body-bytes`.
    static func flagName(_ key: String) -> String {
        key.reduce(into: "") { name, character in
            if character.isUppercase, !name.isEmpty { name += "-" }
            name += character.lowercased()
        }
    }

    /// `maxBodyBytes` → `TODO_MAX_BODY_BYTES`.
    static func environmentName(_ key: String) -> String {
        "TODO_" + flagName(key).replacing("-", with: "_").uppercased()
    }
}

/// A value as one layer gave it: text from a flag or variable, a JSON value from the file.
enum GivenValue {
    case text(String)
    case json(JSONValue)

    /// The value as an error shows it.
    /// The value as an error shows it; a URL's user info (`https://user:password@host`) as `…`.
    var shown: String {
        let text =
            switch self {
            case .text(let text): "'\(text)'"
            case .json(let value): value.jsonText
            }
        return Self.redactingUserInfo(text)
    }

    /// `text` with the user info of a URL in it (what precedes `@` in the authority after `://`)
    /// replaced by `…`.
    static func redactingUserInfo(_ text: String) -> String {
        guard let scheme = text.firstRange(of: "://") else { return text }
        let rest = text[scheme.upperBound...]
        let authority = rest.prefix { !"/?#'\" ".contains($0) }
        guard let at = authority.lastIndex(of: "@") else { return text }
        return String(text[..<scheme.upperBound]) + "…" + String(text[at...])
    }

    /// Whether a token setting was given nothing but white space. A flag or variable is given as
    /// text; in the file, `[]` (a list) and `""` (a file path) are the shipped defaults and mean
    /// none, while a blank string where a list is written is refused like an empty variable.
    func isBlank(for kind: Setting.Kind) -> Bool {
        switch self {
        case .text(let text): text.trimmingWhitespace().isEmpty
        case .json(.string(let text)):
            kind == .list ? text.trimmingWhitespace().isEmpty : !text.isEmpty && text.trimmingWhitespace().isEmpty
        case .json(.array(let elements)):
            !elements.isEmpty && elements.allSatisfy { if case .string(let text) = $0 { text.trimmingWhitespace().isEmpty } else { false } }
        default: false
        }
    }

    /// The text a setting parses, or nil when the file's JSON type is not the setting's.
    func text(as kind: Setting.Kind) -> String? {
        switch (self, kind) {
        case (.text(let text), _): text
        case (.json(.integer(let value)), .integer): String(value)
        case (.json(.string(let value)), .string), (.json(.string(let value)), .list): value
        case (.json(.bool(let value)), .boolean): String(value)
        case (.json(.array(let elements)), .list):
            elements.allSatisfy { if case .string = $0 { true } else { false } }
                ? elements.map { if case .string(let text) = $0 { text } else { "" } }.joined(separator: ",") : nil
        default: nil
        }
    }
}

extension JSONValue {
    /// The value written back as compact JSON, for error messages.
    var jsonText: String {
        var writer = JSONWriter(capacity: 32)
        write(to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.null()
        case .bool(let value): writer.bool(value)
        case .integer(let value): writer.int(value)
        case .number(let value): writer.raw(Array((value.isFinite ? "\(value)" : "1e999").utf8))
        case .string(let value): writer.string(value)
        case .array(let elements):
            writer.beginArray()
            for element in elements { element.write(to: &writer) }
            writer.endArray()
        case .object(let members):
            writer.beginObject()
            for key in members.keys.sorted() {
                writer.key(key)
                members[key]!.write(to: &writer)
            }
            writer.endObject()
        }
    }
}

extension String {
    func trimmingSuffix(_ suffix: Character) -> Substring {
        var text = self[...]
        while text.last == suffix { text = text.dropLast() }
        return text
    }
}
