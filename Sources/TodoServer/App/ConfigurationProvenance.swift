/// Where one setting's value came from.
public enum ConfigurationSource: Sendable, Equatable, CustomStringConvertible {
    /// A command-line flag, such as `--port`.
    case flag(String)
    /// An environment variable, such as `TODO_PORT`.
    case environment(String)
    /// A key of the JSON file at this path.
    case file(key: String, path: String)

    public var description: String {
        switch self {
        case .flag(let flag): flag
        case .environment(let name): name
        case .file(let key, let path): "'\(key)' in \(path)"
        }
    }
}

/// Which config file was read and which source set each key: for the banner, the debug dump and
/// errors that name the one source of a value.
public struct ConfigurationProvenance: Sendable, Equatable {
    public enum File: Sendable, Equatable {
        /// Nothing was loaded (a configuration built in code).
        case notLoaded
        /// The file read, as an absolute path.
        case used(String)
        /// The default file was looked for here (absolute) and not found.
        case missingDefault(String)
    }

    public var file = File.notLoaded
    /// The source of each key that was set; keys left out have their default.
    public var sources: [String: ConfigurationSource] = [:]
    /// `TODO_*` environment variables that name no setting (a typo such as `TODO_PROT`), in name
    /// order, each with the variable it is within two edits of, if any. Ignored, and warned about
    /// at start-up: an environment may carry variables for another version of the server.
    public var ignoredVariables: [IgnoredVariable] = []

    public struct IgnoredVariable: Sendable, Equatable {
        public var name: String
        public var suggestion: String?
    }

    public init() {}
}
