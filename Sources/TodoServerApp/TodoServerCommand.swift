import ArgumentParser
import Configuration
import Dispatch
import Foundation
import Logging
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
            """)

    @Option(help: "JSON config file.") var config: String?
    @Option(help: "Address to bind (default 0.0.0.0).") var host: String?
    @Option(help: "Port to bind; 0 picks a free one (default 8080).") var port: Int?
    @Option(help: "Event-loop threads; 0 is one per core (default 0).") var threads: Int?
    @Option(help: "Largest request body in bytes (default 1048576).") var maxBodyBytes: Int?
    @Option(help: "Largest request line plus headers in bytes (default 32768).") var maxHeaderBytes: Int?
    @Option(help: "Most header fields in one request (default 100).") var maxHeaderCount: Int?
    @Option(help: "Open connections the server holds (default 10000).") var maxConnections: Int?
    @Option(name: .customLong("max-uri-bytes"), help: "Longest request target in bytes (default 8192).") var maxURIBytes: Int?
    @Option(help: "Connection read/write time-out in seconds (default 30).") var timeoutSeconds: Int?
    @Option(help: "Access-Control-Allow-Origin value (default *).") var corsOrigin: String?
    @Option(help: "Access-Control-Max-Age of preflights in seconds (default 86400).") var corsMaxAgeSeconds: Int?
    @Option(name: .customLong("public-url"), help: "Base of absolute URLs, such as https://todo.example.com (default: from Host).")
    var publicURL: String?
    @Option(help: "Default IANA time zone of /todos/upcoming (default UTC).") var timeZone: String?
    @Option(help: "trace, debug, info, notice, warning, error or critical (default info).") var logLevel: String?
    @Option(help: "Seconds shutdown waits for requests in flight (default 10).") var shutdownGraceSeconds: Int?
    @Option(help: "Directory for the journal and snapshots; unset keeps to-dos in memory only.") var dataDir: String?
    @Option(help: "When journal writes reach the disk: always, interval or never (default interval).") var fsync: String?
    @Option(help: "Journal size in bytes that triggers a snapshot (default 67108864).") var compactionBytes: Int?
    @Option(help: "Requests received on one connection and not yet answered before it is no longer read (default 32).")
    var maxPipelinedRequests: Int?
    @Option(help: "Unsent answer bytes of one connection before it is no longer read (default 1048576).") var maxOutputBytes: Int?

    func run() async throws {
        let configuration: ServerConfiguration
        do {
            configuration = try await ServerConfiguration.load(
                flags: flagValues(), environment: ProcessInfo.processInfo.environment, filePath: config)
        } catch {
            throw ValidationError("\(error)")
        }
        LoggingSystem.bootstrap { label in StdoutLogHandler(label: label, logLevel: configuration.logLevel) }
        let logger = Logger(label: "todo-server")
        let durable = try openStore(configuration, logger: logger)
        let application = try TodoApplication(
            configuration: configuration, logger: logger, store: durable ?? InMemoryTodoStore())
        let signals = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                logger.info("signal received, draining", metadata: ["signal": "\(number)"])
                application.requestStop()
            }
            source.resume()
            return source
        }
        try application.start()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                application.waitUntilStopped()
                continuation.resume()
            }
        }
        signals.forEach { $0.cancel() }
        durable?.close()
    }

    /// The durable store when a data directory is set: recovered, with what it found logged.
    private func openStore(_ configuration: ServerConfiguration, logger: Logger) throws -> DurableTodoStore? {
        guard let directory = configuration.dataDirectory else { return nil }
        let started = ContinuousClock.now
        do {
            let store = try DurableTodoStore(
                directory: directory, fsync: configuration.fsync, compactionBytes: configuration.compactionBytes,
                logger: logger)
            let report = store.report
            let elapsed = ContinuousClock.now - started
            logger.info(
                "recovered",
                metadata: [
                    "todos": "\(report.todos)", "snapshot_todos": "\(report.snapshotTodos)",
                    "journal_records": "\(report.journalRecords)", "dropped_bytes": "\(report.droppedBytes)",
                    "ms": "\(Double(elapsed.components.attoseconds / 10_000_000_000_000 + elapsed.components.seconds * 100_000) / 100)",
                    "data_dir": "\(directory)", "fsync": "\(configuration.fsync.rawValue)",
                ])
            return store
        } catch {
            logger.critical("cannot open the data directory", metadata: ["reason": "\(error)"])
            throw ExitCode(3)
        }
    }

    private func flagValues() -> [String: ConfigValue] {
        var values: [String: ConfigValue] = [:]
        func put(_ key: String, _ content: ConfigContent?) {
            if let content { values[key] = ConfigValue(content, isSecret: false) }
        }
        put("host", host.map { .string($0) })
        put("port", port.map { .int($0) })
        put("threads", threads.map { .int($0) })
        put("maxBodyBytes", maxBodyBytes.map { .int($0) })
        put("maxHeaderBytes", maxHeaderBytes.map { .int($0) })
        put("maxUriBytes", maxURIBytes.map { .int($0) })
        put("maxHeaderCount", maxHeaderCount.map { .int($0) })
        put("maxConnections", maxConnections.map { .int($0) })
        put("timeoutSeconds", timeoutSeconds.map { .int($0) })
        put("corsOrigin", corsOrigin.map { .string($0) })
        put("corsMaxAgeSeconds", corsMaxAgeSeconds.map { .int($0) })
        put("publicUrl", publicURL.map { .string($0) })
        put("timeZone", timeZone.map { .string($0) })
        put("logLevel", logLevel.map { .string($0) })
        put("shutdownGraceSeconds", shutdownGraceSeconds.map { .int($0) })
        put("dataDir", dataDir.map { .string($0) })
        put("fsync", fsync.map { .string($0) })
        put("compactionBytes", compactionBytes.map { .int($0) })
        put("maxPipelinedRequests", maxPipelinedRequests.map { .int($0) })
        put("maxOutputBytes", maxOutputBytes.map { .int($0) })
        return values
    }
}
