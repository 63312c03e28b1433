import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import ServiceLifecycle
import TodoData
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
    /// A flag for every setting, from the settings table.
    @OptionGroup var settings: SettingFlags

    func run() async throws {
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.load(
                flags: settings.values, environment: ProcessInfo.processInfo.environment, filePath: config)
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
}
