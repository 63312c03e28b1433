import PostgresLoop

extension ServerConfiguration {
    /// The PostgreSQL settings, when `databaseURL` chooses PostgreSQL.
    public var postgres: PostgresConfiguration? {
        guard let databaseURL else { return nil }
        let deadline = Duration.milliseconds(databaseTimeoutMs)
        return PostgresConfiguration(
            connectionString: databaseURL,
            timing: PostgresTiming(
                requestTimeout: deadline, connectTimeout: max(deadline, .seconds(2)),
                readSpillAfter: .milliseconds(databaseReadSpillMilliseconds)),
            connectionsPerLoop: databaseConnectionsPerLoop, pipelineDepth: databasePipelineDepth,
            readPipelineDepth: databaseReadPipelineDepth)
    }

    /// `databaseURL` with its password masked, for the banner and logs.
    public var maskedDatabaseURL: String? {
        databaseURL.map(PostgresConnectionString.masked)
    }
}

extension Setting {
    /// `databaseUrl`: parsed by libpq and checked to need no DNS lookup (nothing connects here);
    /// shown only masked, in errors too (it may hold a password).
    static func databaseURL() -> Setting {
        let expected =
            "a libpq connection string or postgresql:// URI whose host is a unix-socket directory or a numeric address (or that sets hostaddr=)"
        return Setting(
            key: "databaseUrl", kind: .string,
            help:
                "PostgreSQL connection string or URI that keeps the to-dos (host: a socket directory or an IP address, no DNS name); unset keeps them in memory or in dataDir.",
            secret: true, expected: expected,
            apply: { configuration, text in
                if text.isEmpty {
                    configuration.databaseURL = nil
                    return nil
                }
                do {
                    _ = try PostgresConfiguration(connectionString: text).validated()
                } catch {
                    return "\(expected) (\(error))"
                }
                configuration.databaseURL = text
                return nil
            },
            render: { $0.maskedDatabaseURL ?? "" })
    }
}
