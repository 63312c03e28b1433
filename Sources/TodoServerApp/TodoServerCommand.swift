import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import ServiceLifecycle
import TodoServer

/// The `todo-server` command: reads the layered configuration, serves until SIGTERM or SIGINT.
@main
struct TodoServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "todo-server",
        abstract: "A to-do HTTP JSON API server on libevent.",
        discussion: """
            Every setting comes from, in order of strength: a flag, a TODO_* environment variable \
            (TODO_PORT, TODO_MAX_BODY_BYTES, ...), the JSON config file (\(ServerConfiguration.defaultFilePath) \
            unless --config or TODO_CONFIG names another), then the built-in default.
            """,
        version: SystemInteractor.version)

    @Option(help: "JSON config file (default \(ServerConfiguration.defaultFilePath)).") var config: String?
    // Each setting's flag takes its value as text, even one that starts with "-" ("--port -1"), so
    // that the loader checks it like a variable or a file value and names the flag in its error.
    @Option(name: .customLong("host"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "host")))
    var host: String?
    @Option(name: .customLong("port"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "port")))
    var port: String?
    @Option(name: .customLong("threads"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "threads")))
    var threads: String?
    @Option(name: .customLong("max-body-bytes"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "maxBodyBytes")))
    var maxBodyBytes: String?
    @Option(name: .customLong("max-header-bytes"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "maxHeaderBytes")))
    var maxHeaderBytes: String?
    @Option(name: .customLong("max-header-count"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "maxHeaderCount")))
    var maxHeaderCount: String?
    @Option(name: .customLong("max-connections"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "maxConnections")))
    var maxConnections: String?
    @Option(name: .customLong("max-uri-bytes"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "maxUriBytes")))
    var maxUriBytes: String?
    @Option(name: .customLong("timeout-seconds"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "timeoutSeconds")))
    var timeoutSeconds: String?
    @Option(name: .customLong("cors-origin"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "corsOrigin")))
    var corsOrigin: String?
    @Option(name: .customLong("cors-credentials"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "corsCredentials")))
    var corsCredentials: String?
    @Option(
        name: .customLong("cors-max-age-seconds"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "corsMaxAgeSeconds")))
    var corsMaxAgeSeconds: String?
    @Option(name: .customLong("public-url"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "publicUrl")))
    var publicUrl: String?
    @Option(name: .customLong("time-zone"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "timeZone")))
    var timeZone: String?
    @Option(name: .customLong("log-level"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "logLevel")))
    var logLevel: String?
    @Option(name: .customLong("log-format"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "logFormat")))
    var logFormat: String?
    @Option(name: .customLong("log-buffer-bytes"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "logBufferBytes")))
    var logBufferBytes: String?
    @Option(
        name: .customLong("log-flush-milliseconds"), parsing: .unconditional,
        help: .init(ServerConfiguration.help(for: "logFlushMilliseconds")))
    var logFlushMilliseconds: String?
    @Option(
        name: .customLong("shutdown-grace-seconds"), parsing: .unconditional,
        help: .init(ServerConfiguration.help(for: "shutdownGraceSeconds")))
    var shutdownGraceSeconds: String?
    @Option(name: .customLong("data-dir"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "dataDir")))
    var dataDir: String?
    @Option(name: .customLong("database-url"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "databaseUrl")))
    var databaseUrl: String?
    @Option(
        name: .customLong("database-connections-per-loop"), parsing: .unconditional,
        help: .init(ServerConfiguration.help(for: "databaseConnectionsPerLoop")))
    var databaseConnectionsPerLoop: String?
    @Option(
        name: .customLong("database-pipeline-depth"), parsing: .unconditional,
        help: .init(ServerConfiguration.help(for: "databasePipelineDepth")))
    var databasePipelineDepth: String?
    @Option(
        name: .customLong("database-read-pipeline-depth"), parsing: .unconditional,
        help: .init(ServerConfiguration.help(for: "databaseReadPipelineDepth")))
    var databaseReadPipelineDepth: String?
    @Option(
        name: .customLong("database-read-spill-milliseconds"), parsing: .unconditional,
        help: .init(ServerConfiguration.help(for: "databaseReadSpillMilliseconds")))
    var databaseReadSpillMilliseconds: String?
    @Option(
        name: .customLong("database-timeout-ms"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "databaseTimeoutMs")))
    var databaseTimeoutMs: String?
    @Option(
        name: .customLong("database-clear-lock-wait-milliseconds"), parsing: .unconditional,
        help: .init(ServerConfiguration.help(for: "databaseClearLockWaitMilliseconds")))
    var databaseClearLockWaitMilliseconds: String?
    @Option(name: .customLong("fsync"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "fsync")))
    var fsync: String?
    @Option(name: .customLong("compaction-bytes"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "compactionBytes")))
    var compactionBytes: String?
    @Option(name: .customLong("auth-tokens"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "authTokens")))
    var authTokens: String?
    @Option(name: .customLong("read-tokens"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "readTokens")))
    var readTokens: String?
    @Option(name: .customLong("auth-tokens-file"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "authTokensFile")))
    var authTokensFile: String?
    @Option(name: .customLong("read-tokens-file"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "readTokensFile")))
    var readTokensFile: String?
    @Option(name: .customLong("owner-tokens"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "ownerTokens")))
    var ownerTokens: String?
    @Option(name: .customLong("owner-tokens-file"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "ownerTokensFile")))
    var ownerTokensFile: String?
    @Option(name: .customLong("jwt-jwks-file"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "jwtJwksFile")))
    var jwtJwksFile: String?
    @Option(name: .customLong("jwt-jwks-url"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "jwtJwksUrl")))
    var jwtJwksUrl: String?
    @Option(name: .customLong("jwt-jwks-ca-file"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "jwtJwksCaFile")))
    var jwtJwksCaFile: String?
    @Option(
        name: .customLong("jwt-jwks-min-refresh-seconds"), parsing: .unconditional,
        help: .init(ServerConfiguration.help(for: "jwtJwksMinRefreshSeconds")))
    var jwtJwksMinRefreshSeconds: String?
    @Option(
        name: .customLong("jwt-jwks-timeout-seconds"), parsing: .unconditional,
        help: .init(ServerConfiguration.help(for: "jwtJwksTimeoutSeconds")))
    var jwtJwksTimeoutSeconds: String?
    @Option(name: .customLong("jwt-issuer"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "jwtIssuer")))
    var jwtIssuer: String?
    @Option(name: .customLong("jwt-audience"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "jwtAudience")))
    var jwtAudience: String?
    @Option(name: .customLong("jwt-owner-claim"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "jwtOwnerClaim")))
    var jwtOwnerClaim: String?
    @Option(
        name: .customLong("jwt-leeway-seconds"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "jwtLeewaySeconds")))
    var jwtLeewaySeconds: String?
    @Option(name: .customLong("metrics-public"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "metricsPublic")))
    var metricsPublic: String?
    @Option(
        name: .customLong("max-pipelined-requests"), parsing: .unconditional,
        help: .init(ServerConfiguration.help(for: "maxPipelinedRequests")))
    var maxPipelinedRequests: String?
    @Option(name: .customLong("max-output-bytes"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "maxOutputBytes")))
    var maxOutputBytes: String?
    @Option(
        name: .customLong("min-body-bytes-per-second"), parsing: .unconditional,
        help: .init(ServerConfiguration.help(for: "minBodyBytesPerSecond")))
    var minBodyBytesPerSecond: String?
    @Option(
        name: .customLong("body-rate-grace-seconds"), parsing: .unconditional,
        help: .init(ServerConfiguration.help(for: "bodyRateGraceSeconds")))
    var bodyRateGraceSeconds: String?
    @Option(name: .customLong("recover"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "recover")))
    var recover: String?
    @Option(name: .customLong("events-retained"), parsing: .unconditional, help: .init(ServerConfiguration.help(for: "eventsRetained")))
    var eventsRetained: String?
    @Option(
        name: .customLong("events-heartbeat-seconds"), parsing: .unconditional,
        help: .init(ServerConfiguration.help(for: "eventsHeartbeatSeconds")))
    var eventsHeartbeatSeconds: String?
    @Option(
        name: .customLong("events-max-subscribers"), parsing: .unconditional,
        help: .init(ServerConfiguration.help(for: "eventsMaxSubscribers")))
    var eventsMaxSubscribers: String?
    @Option(
        name: .customLong("events-max-buffered-bytes"), parsing: .unconditional,
        help: .init(ServerConfiguration.help(for: "eventsMaxBufferedBytes")))
    var eventsMaxBufferedBytes: String?
    @Option(
        name: .customLong("events-batch-milliseconds"), parsing: .unconditional,
        help: .init(ServerConfiguration.help(for: "eventsBatchMilliseconds")))
    var eventsBatchMilliseconds: String?

    @Option(
        name: .customLong("events-loop-share-percent"), parsing: .unconditional,
        help: .init(ServerConfiguration.help(for: "eventsLoopSharePercent")))
    var eventsLoopSharePercent: String?
    @Option(
        name: .customLong("events-poll-milliseconds"), parsing: .unconditional,
        help: .init(ServerConfiguration.help(for: "eventsPollMilliseconds")))
    var eventsPollMilliseconds: String?
    @Option(
        name: .customLong("events-read-gap-milliseconds"), parsing: .unconditional,
        help: .init(ServerConfiguration.help(for: "eventsReadGapMilliseconds")))
    var eventsReadGapMilliseconds: String?

    func run() async throws {
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.load(
                flags: flagValues(), environment: ProcessInfo.processInfo.environment, filePath: config)
        } catch {
            // The message names the key, the value and its one source; usage would only bury it.
            Self.writeToStandardError("todo-server: \(error)\n")
            throw ExitCode.validationFailure
        }
        let output = LogWriter.standardOutput(for: configuration)
        let deadline = ShutdownDeadline(graceSeconds: configuration.shutdownGraceSeconds)
        defer { output.close(timeout: .milliseconds(Int64(deadline.remainingSeconds * 1000))) }
        LoggingSystem.bootstrap { label in
            StdoutLogHandler(label: label, logLevel: configuration.logLevel, format: configuration.logFormat, writer: output)
        }
        let logger = Logger(label: "todo-server")
        signal(SIGXFSZ, SIG_IGN)  // a file-size limit fails the journal write (EFBIG), never kills the server
        let postgres = try await DatabaseStartup.open(configuration, logger: logger)
        let durable = try openStore(configuration, logger: logger)
        let store: any TodoStore =
            if let durable { durable } else if let postgres { postgres } else {
                InMemoryTodoStore(changesRetained: configuration.eventsRetained)
            }
        let application = try TodoApplication(
            configuration: configuration, logger: logger, store: store,
            droppedLogLines: { output.droppedLines })
        let ignored = IgnoredSignals.ignore(logger: logger)
        defer { ignored.forEach { $0.cancel() } }
        // Stopped in reverse order on SIGTERM or SIGINT: the HTTP service drains first, then the
        // store closes.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let durable { services.append(.init(service: StoreService(store: durable, logger: logger, deadline: deadline))) }
        if let postgres { services.append(.init(service: PostgresStoreService(store: postgres, logger: logger))) }
        services.append(.init(service: HTTPService(application: application, logger: logger, deadline: deadline)))
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: services, logger: logger))
        let stops = StopSignals.watch { Task { await group.triggerGracefulShutdown() } }
        defer { stops.forEach { $0.cancel() } }
        try await group.run()
    }

    /// The durable store when a data directory is set: recovered, with what it found logged.
    private func openStore(_ configuration: ServerConfiguration, logger: Logger) throws -> DurableTodoStore? {
        guard let directory = configuration.dataDirectory else { return nil }
        let started = ContinuousClock.now
        do {
            let store = try DurableTodoStore(
                directory: directory, fsync: configuration.fsync, compactionBytes: configuration.compactionBytes,
                recovery: configuration.recovery, changesRetained: configuration.eventsRetained, logger: logger)
            let report = store.report
            for loss in report.losses {
                logger.warning("recovered with losses", metadata: ["loss": "\(loss)", "data_dir": "\(directory)"])
            }
            let elapsed = ContinuousClock.now - started
            logger.info(
                "recovered",
                metadata: [
                    "todos": "\(report.todos)", "snapshot_todos": "\(report.snapshotTodos)",
                    "journal_records": "\(report.journalRecords)", "dropped_bytes": "\(report.droppedBytes)",
                    "ms": "\(DecimalText.milliseconds(elapsed))",
                    "data_dir": "\(directory)", "fsync": "\(configuration.fsync.rawValue)",
                ])
            return store
        } catch {
            logger.critical("cannot open the data directory", metadata: ["reason": "\(error)"])
            throw ExitCode(3)
        }
    }

    /// Writes all of `text` to file descriptor 2 (retrying short writes and EINTR).
    static func writeToStandardError(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }

    /// The flags given, keyed by setting key.
    private func flagValues() -> [String: String] {
        let given: [(String, String?)] = [
            ("host", host),
            ("port", port),
            ("threads", threads),
            ("maxBodyBytes", maxBodyBytes),
            ("maxHeaderBytes", maxHeaderBytes),
            ("maxHeaderCount", maxHeaderCount),
            ("maxConnections", maxConnections),
            ("maxUriBytes", maxUriBytes),
            ("timeoutSeconds", timeoutSeconds),
            ("corsOrigin", corsOrigin),
            ("corsCredentials", corsCredentials),
            ("corsMaxAgeSeconds", corsMaxAgeSeconds),
            ("publicUrl", publicUrl),
            ("timeZone", timeZone),
            ("logLevel", logLevel),
            ("logFormat", logFormat),
            ("logBufferBytes", logBufferBytes),
            ("logFlushMilliseconds", logFlushMilliseconds),
            ("shutdownGraceSeconds", shutdownGraceSeconds),
            ("dataDir", dataDir),
            ("databaseUrl", databaseUrl),
            ("databaseConnectionsPerLoop", databaseConnectionsPerLoop),
            ("databasePipelineDepth", databasePipelineDepth),
            ("databaseReadPipelineDepth", databaseReadPipelineDepth),
            ("databaseReadSpillMilliseconds", databaseReadSpillMilliseconds),
            ("databaseTimeoutMs", databaseTimeoutMs),
            ("databaseClearLockWaitMilliseconds", databaseClearLockWaitMilliseconds),
            ("fsync", fsync),
            ("compactionBytes", compactionBytes),
            ("authTokens", authTokens),
            ("readTokens", readTokens),
            ("authTokensFile", authTokensFile),
            ("readTokensFile", readTokensFile),
            ("ownerTokens", ownerTokens),
            ("ownerTokensFile", ownerTokensFile),
            ("jwtJwksFile", jwtJwksFile),
            ("jwtJwksUrl", jwtJwksUrl),
            ("jwtJwksCaFile", jwtJwksCaFile),
            ("jwtJwksMinRefreshSeconds", jwtJwksMinRefreshSeconds),
            ("jwtJwksTimeoutSeconds", jwtJwksTimeoutSeconds),
            ("jwtIssuer", jwtIssuer),
            ("jwtAudience", jwtAudience),
            ("jwtOwnerClaim", jwtOwnerClaim),
            ("jwtLeewaySeconds", jwtLeewaySeconds),
            ("metricsPublic", metricsPublic),
            ("maxPipelinedRequests", maxPipelinedRequests),
            ("maxOutputBytes", maxOutputBytes),
            ("minBodyBytesPerSecond", minBodyBytesPerSecond),
            ("bodyRateGraceSeconds", bodyRateGraceSeconds),
            ("recover", recover),
            ("eventsRetained", eventsRetained),
            ("eventsHeartbeatSeconds", eventsHeartbeatSeconds),
            ("eventsMaxSubscribers", eventsMaxSubscribers),
            ("eventsMaxBufferedBytes", eventsMaxBufferedBytes),
            ("eventsBatchMilliseconds", eventsBatchMilliseconds),
            ("eventsLoopSharePercent", eventsLoopSharePercent),
            ("eventsPollMilliseconds", eventsPollMilliseconds),
            ("eventsReadGapMilliseconds", eventsReadGapMilliseconds),
        ]
        return Dictionary(uniqueKeysWithValues: given.compactMap { key, value in value.map { (key, $0) } })
    }
}
