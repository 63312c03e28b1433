/// A setting that cannot be used: the key, the value as given (hidden for secrets), and the one
/// source that set it; or a config file that cannot be read.
public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    /// The setting's key (for a file problem, `config`).
    public let key: String
    /// The value as it was given: quoted text from a flag or variable, JSON from the file.
    public let value: String
    public let expected: String
    /// Who set the value; nil for a problem with the file itself.
    public let source: ConfigurationSource?
    private let problem: String

    /// `key` was set to `value` by `source`, but must be `expected`.
    init(key: String, value: String, expected: String, source: ConfigurationSource) {
        self.key = key
        self.value = value
        self.expected = expected
        self.source = source
        problem = "'\(key)' is \(value) but must be \(expected)"
    }

    /// A problem that is not one value's: an unreadable file, a key that is not a setting.
    init(key: String, problem: String, source: ConfigurationSource?) {
        self.key = key
        value = ""
        expected = ""
        self.source = source
        self.problem = problem
    }

    public var description: String {
        "invalid configuration: \(problem)" + (source.map { " (set by \($0))" } ?? "")
    }
}
