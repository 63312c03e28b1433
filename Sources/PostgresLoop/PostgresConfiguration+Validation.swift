import CLibpq
import Glibc

/// A connection string libpq cannot use from an event loop.
public enum PostgresConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libpq could not parse it (its message, with the quoted text left out: it may hold a password).
    case unparsable(String)
    /// A host would need a DNS lookup, which libpq does synchronously.
    case hostNeedsLookup(String)
    case outOfRange(String)
    /// libpq (loaded when a database is first configured) cannot be loaded: why.
    case libraryMissing(String)

    public var description: String {
        switch self {
        case .libraryMissing(let reason): "PostgreSQL's client library is needed for a database URL: \(reason) (install libpq5)"
        case .unparsable(let message): "the database connection string cannot be parsed: \(message)"
        case .hostNeedsLookup(let host):
            "the database host \"\(host)\" needs a DNS lookup, which would block an event loop: use a unix-socket directory, a numeric address, or hostaddr="
        case .outOfRange(let message): message
        }
    }
}

extension PostgresConfiguration {
    /// This configuration, after checking that connecting needs no DNS lookup and the limits hold.
    public func validated() throws(PostgresConfigurationError) -> PostgresConfiguration {
        if let reason = clibpq_load_error() { throw .libraryMissing(String(cString: reason)) }
        guard connectionsPerLoop >= 1, connectionsPerLoop <= 64 else {
            throw .outOfRange("database connections per loop must be 1...64, not \(connectionsPerLoop)")
        }
        guard retryLimit >= 0, retryLimit <= 10 else {
            throw .outOfRange("database retry limit must be 0...10, not \(retryLimit)")
        }
        guard timing.requestTimeout > .zero, timing.connectTimeout > .zero else {
            throw .outOfRange("database timeouts must be positive")
        }
        let options = try Self.parse(connectionString)
        let hostaddr = options["hostaddr"] ?? ""
        guard hostaddr.isEmpty else { return self }
        for host in (options["host"] ?? "").split(separator: ",", omittingEmptySubsequences: true) {
            let host = String(host)
            guard host.hasPrefix("/") || host.hasPrefix("@") || Self.isNumericAddress(host) else {
                throw .hostNeedsLookup(host)
            }
        }
        return self
    }

    /// The keywords libpq reads from `connectionString` (a key=value string or a URI).
    static func parse(_ connectionString: String) throws(PostgresConfigurationError) -> [String: String] {
        let options = try PostgresConnectionOptions.parse(connectionString)
        return Dictionary(options.options.map { ($0.keyword, $0.value) }, uniquingKeysWith: { $1 })
    }

    static func isNumericAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}

extension String {
    var trimmingTrailingNewlines: String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}
