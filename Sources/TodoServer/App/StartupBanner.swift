import Logging

/// What start-up tells the operator: the URL to open, the config file (or that none was found),
/// the store, access control and the loops; at debug level every setting with its source
/// (tokens by count only).
struct StartupBanner {
    let configuration: ServerConfiguration
    /// The bound port (the configured one may be 0).
    let port: Int

    /// The URL a browser on this machine opens.
    var url: String {
        let host =
            switch configuration.host {
            case "0.0.0.0", "::", "[::]": "localhost"
            case let host where host.contains(":") && !host.hasPrefix("["): "[\(host)]"
            default: configuration.host
            }
        return "http://\(host):\(port)/"
    }

    var configFileLine: (level: Logger.Level, message: String) {
        switch configuration.provenance.file {
        case .used(let path): (.info, "config file: \(path)")
        case .missingDefault(let path):
            (.notice, "no config file at \(path): using flags, TODO_* variables and built-in defaults")
        case .notLoaded: (.info, "config file: none (configuration built in code)")
        }
    }

    /// One warning per `TODO_*` variable that names no setting.
    var ignoredVariableLines: [String] {
        configuration.provenance.ignoredVariables.map { variable in
            let suggestion = variable.suggestion.map { " (did you mean \($0)?)" } ?? ""
            return "ignored environment variable \(variable.name): not a setting\(suggestion)"
        }
    }

    var storeLine: String {
        if let database = configuration.maskedDatabaseURL {
            return
                "store: PostgreSQL at \(database) (\(configuration.databaseConnectionsPerLoop) connections per loop, \(configuration.databaseTimeoutMs) ms deadline)"
        }
        guard let directory = configuration.dataDirectory else {
            return "store: in memory — set TODO_DATA_DIR or TODO_DATABASE_URL to keep to-dos"
        }
        return "store: journal in \(directory) (fsync \(configuration.fsync.rawValue))"
    }

    var accessLine: String {
        guard configuration.requiresTokens else {
            return "access: no token needed — anyone who reaches \(configuration.host):\(port) may read and change to-dos"
        }
        let owners = Set(configuration.ownerTokens.map(\.owner)).count
        var identities = owners > 0 ? ", \(configuration.ownerTokens.count) owner tokens for \(owners) owners" : ""
        if let jwt = configuration.jwtVerification, let keys = configuration.jwtJwksFile ?? configuration.jwtJwksUrl {
            identities += ", JSON Web Tokens of \(jwt.issuer) for \(jwt.audience) (owner claim \(jwt.ownerClaim), keys from \(keys))"
        }
        if configuration.hasOwners { identities += "; each owner sees only their own to-dos" }
        return
            "access: bearer tokens required (\(configuration.authTokens.count) read-write, \(configuration.readTokens.count) read-only\(identities)); "
            + "/metrics \(configuration.metricsPublic ? "public" : "needs a token")"
    }

    /// How to follow the changes.
    var feedLine: String {
        let across = configuration.databaseURL != nil ? ", across every instance on the database" : ""
        return "live feed: curl -N \(url.dropLast())\(Route.events.template) (Server-Sent Events; resume with Last-Event-ID; "
            + "\(configuration.eventsRetained) changes retained\(across))"
    }

    func log(to logger: Logger) {
        logger.info(
            "listening on \(url)",
            metadata: [
                "host": "\(configuration.host)", "port": "\(port)", "threads": "\(configuration.effectiveThreads)",
                "version": "\(SystemInteractor.version)",
            ])
        let file = configFileLine
        logger.log(level: file.level, "\(file.message)")
        for line in ignoredVariableLines { logger.warning("\(line)") }
        logger.info("\(storeLine)")
        logger.info("\(accessLine)")
        logger.info("\(feedLine)")
        logger.info(
            "loops: \(configuration.effectiveThreads) event-loop threads on one port; log level \(configuration.logLevel.rawValue), format \(configuration.logFormat.rawValue)"
        )
        guard logger.logLevel <= .debug else { return }
        for (key, value, source) in configuration.dump {
            logger.debug("setting \(key) = \(value) (\(source))")
        }
    }
}
