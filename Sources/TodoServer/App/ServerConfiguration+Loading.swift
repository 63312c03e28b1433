import Configuration
import Foundation
import Logging

/// A setting that cannot be used, named by its key with the value that was given.
public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    public let key: String
    public let value: String
    public let expected: String

    public var description: String {
        "invalid configuration: '\(key)' is '\(value)' but must be \(expected) "
            + "(set by --\(ServerConfiguration.flagName(key)), \(ServerConfiguration.environmentName(key)) or '\(key)' in the config file)"
    }
}

extension ServerConfiguration {
    /// The file read when neither `--config` nor `TODO_CONFIG` names one.
    public static let defaultFilePath = "Config/todo-server.json"

    /// Reads the layers in order of strength: flags, then `TODO_*` environment variables, then the
    /// JSON file, then the built-in defaults. A value of the wrong type or range is an error.
    public static func load(
        flags: [String: ConfigValue], environment: [String: String], filePath: String?
    ) async throws -> ServerConfiguration {
        let explicitPath = filePath ?? environment["TODO_CONFIG"]
        let file = try await FileProvider<JSONSnapshot>(
            filePath: .init(explicitPath ?? defaultFilePath), allowMissing: explicitPath == nil)
        let reader = ConfigReader(providers: [
            InMemoryProvider(name: "flags", values: Dictionary(uniqueKeysWithValues: flags.map { (AbsoluteConfigKey([$0.key]), $0.value) })),
            EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: ["todo"]),
            file,
        ])
        return try ServerConfiguration(reading: reader)
    }

    init(reading reader: ConfigReader) throws(ConfigurationError) {
        self.init()
        let settings = Settings(reader: reader)
        host = try settings.string("host", default: host) { !$0.isEmpty }
        port = try settings.int("port", default: port, in: 0...65_535)
        threads = try settings.int("threads", default: threads, in: 0...1024)
        maxBodyBytes = try settings.int("maxBodyBytes", default: maxBodyBytes, in: 1...(1 << 30))
        maxHeaderBytes = try settings.int("maxHeaderBytes", default: maxHeaderBytes, in: 1024...(1 << 24))
        maxURIBytes = try settings.int("maxUriBytes", default: maxURIBytes, in: 64...(1 << 24))
        maxHeaderCount = try settings.int("maxHeaderCount", default: maxHeaderCount, in: 8...10_000)
        maxConnections = try settings.int("maxConnections", default: maxConnections, in: 1...1_000_000)
        timeoutSeconds = try settings.int("timeoutSeconds", default: timeoutSeconds, in: 1...86_400)
        corsOrigin = try settings.string("corsOrigin", default: corsOrigin) { !$0.isEmpty && !$0.contains("\r") && !$0.contains("\n") }
        corsMaxAgeSeconds = try settings.int("corsMaxAgeSeconds", default: corsMaxAgeSeconds, in: 0...86_400 * 7)
        let url = try settings.string("publicUrl", default: "") { $0.isEmpty || $0.hasPrefix("http://") || $0.hasPrefix("https://") }
        publicURL = url.isEmpty ? nil : String(url.trimmingSuffix("/"))
        timeZone = try settings.string("timeZone", default: timeZone) { TimeZone(identifier: $0) != nil }
        let level = try settings.string("logLevel", default: logLevel.rawValue) { Logger.Level(rawValue: $0) != nil }
        logLevel = Logger.Level(rawValue: level) ?? .info
        shutdownGraceSeconds = try settings.int("shutdownGraceSeconds", default: shutdownGraceSeconds, in: 0...3600)
        let directory = try settings.string("dataDir", default: "") { !$0.contains("\0") }
        dataDirectory = directory.isEmpty ? nil : directory
        let policy = try settings.string("fsync", default: fsync.rawValue) { FsyncPolicy(rawValue: $0) != nil }
        fsync = FsyncPolicy(rawValue: policy) ?? .interval
        compactionBytes = try settings.int("compactionBytes", default: compactionBytes, in: 4096...(1 << 40))
        maxPipelinedRequests = try settings.int("maxPipelinedRequests", default: maxPipelinedRequests, in: 1...1024)
        maxOutputBytes = try settings.int("maxOutputBytes", default: maxOutputBytes, in: 4096...(1 << 30))
        guard maxURIBytes < maxHeaderBytes else {
            throw ConfigurationError(key: "maxUriBytes", value: String(maxURIBytes), expected: "less than maxHeaderBytes (\(maxHeaderBytes))")
        }
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
        "TODO_" + flagName(key).replacingOccurrences(of: "-", with: "_").uppercased()
    }
}

/// Typed reads that turn a value of the wrong type or range into a `ConfigurationError`.
private struct Settings {
    let reader: ConfigReader

    func int(_ key: String, default value: Int, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        let configKey = ConfigKey(key)
        guard let given = reader.int(forKey: configKey) else {
            guard let raw = reader.string(forKey: configKey) else { return value }
            throw ConfigurationError(key: key, value: raw, expected: "an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        guard range.contains(given) else {
            throw ConfigurationError(key: key, value: String(given), expected: "an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return given
    }

    func string(_ key: String, default value: String, valid: (String) -> Bool) throws(ConfigurationError) -> String {
        guard let given = reader.string(forKey: ConfigKey(key)) else { return value }
        guard valid(given) else { throw ConfigurationError(key: key, value: given, expected: Self.expectation[key] ?? "valid") }
        return given
    }

    private static let expectation = [
        "host": "a host name or address",
        "corsOrigin": "an origin such as https://app.example.com, * or null",
        "publicUrl": "an http:// or https:// URL",
        "timeZone": "an IANA time zone such as Europe/Berlin",
        "logLevel": "one of trace, debug, info, notice, warning, error, critical",
        "dataDir": "a directory path",
        "fsync": "one of always, interval, never",
    ]
}

extension String {
    func trimmingSuffix(_ suffix: Character) -> Substring {
        var text = self[...]
        while text.last == suffix { text = text.dropLast() }
        return text
    }
}
