import Foundation
import Logging
import Testing

@testable import TodoServer

@Suite("ServerConfiguration")
struct ServerConfigurationTests: ConfigurationFixtures {
    @Test("defaults when nothing is set")
    func defaults() async throws {
        var configuration = try ServerConfiguration.load(flags: [:], environment: [:], filePath: nil)
        configuration.provenance = ConfigurationProvenance()
        #expect(configuration == ServerConfiguration())
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.maxBodyBytes == 1_048_576)
        #expect(configuration.corsOrigin == "*")
    }

    @Test("the shipped Config file holds exactly the built-in defaults")
    func shippedFile() async throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Config/todo-server.json")
            .path
        var configuration = try ServerConfiguration.load(flags: [:], environment: [:], filePath: path)
        #expect(configuration.provenance.sources.count == ServerConfiguration.settingKeys.count, "the file lists every key")
        configuration.provenance = ConfigurationProvenance()
        #expect(configuration == ServerConfiguration())
    }

    @Test("flag beats environment beats file beats default")
    func layering() async throws {
        let file = try writeFile(#"{"port": 7000, "host": "127.0.0.1", "threads": 3, "timeZone": "Europe/Berlin"}"#)
        let environment = [
            "TODO_PORT": "7100", "TODO_THREADS": "5", "TODO_MAX_BODY_BYTES": "2048", "TODO_PUBLIC_URL": "https://todo.example.com/",
        ]
        let configuration = try ServerConfiguration.load(
            flags: ["port": "7200"], environment: environment, filePath: file)
        #expect(configuration.port == 7200)
        #expect(configuration.threads == 5)
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.timeZone == "Europe/Berlin")
        #expect(configuration.maxBodyBytes == 2048)
        #expect(configuration.publicURL == "https://todo.example.com")
        #expect(configuration.logLevel == .info)
    }

    @Test("the wire's settings reach the loops: limits, body rate, writes at the end of the turn (on unless set false)")
    func wireSettings() throws {
        let defaults = TodoApplication.wireConfiguration(try ServerConfiguration.load(flags: [:], environment: [:], filePath: nil))
        #expect(defaults.writesAtTurnEnd)
        #expect(defaults.maxPipelinedRequests == 32)
        #expect(defaults.minBodyBytesPerSecond == 240)
        let set = TodoApplication.wireConfiguration(
            try ServerConfiguration.load(
                flags: [:],
                environment: [
                    "TODO_WRITE_AT_TURN_END": "false", "TODO_MAX_PIPELINED_REQUESTS": "8", "TODO_BODY_RATE_GRACE_SECONDS": "2",
                ], filePath: nil))
        #expect(!set.writesAtTurnEnd)
        #expect(set.maxPipelinedRequests == 8)
        #expect(set.bodyRateGracePeriod == .seconds(2))
    }

    @Test("the journal settings: TODO_DATA_DIR turns it on, fsync and compaction have defaults")
    func journalSettings() async throws {
        let defaults = try ServerConfiguration.load(flags: [:], environment: [:], filePath: nil)
        #expect(defaults.dataDirectory == nil)
        #expect(defaults.fsync == .interval)
        #expect(defaults.compactionBytes == 64 << 20)
        let set = try ServerConfiguration.load(
            flags: ["fsync": "always"],
            environment: ["TODO_DATA_DIR": "/var/lib/todo", "TODO_FSYNC": "never", "TODO_COMPACTION_BYTES": "1048576"],
            filePath: nil)
        #expect(set.dataDirectory == "/var/lib/todo")
        #expect(set.fsync == .always)
        #expect(set.compactionBytes == 1 << 20)
        #expect(defaults.recovery == .off)
        let recovering = try await ServerConfiguration.load(flags: [:], environment: ["TODO_RECOVER": "truncate"], filePath: nil)
        #expect(recovering.recovery == .truncate)
    }

    @Test("TODO_CONFIG names the file")
    func configFromEnvironment() async throws {
        let file = try writeFile(#"{"corsOrigin": "null", "logLevel": "warning"}"#)
        let configuration = try ServerConfiguration.load(flags: [:], environment: ["TODO_CONFIG": file], filePath: nil)
        #expect(configuration.corsOrigin == "null")
        #expect(configuration.logLevel == .warning)
    }

    @Test(
        "a bad value names its key and value",
        arguments: [
            (["TODO_PORT": "eighty"], "'port' is 'eighty' but must be an integer from 0 to 65535"),
            (["TODO_PORT": "70000"], "'port' is '70000' but must be an integer from 0 to 65535"),
            (["TODO_THREADS": "-1"], "'threads' is '-1' but must be an integer from 0 to 1024"),
            (["TODO_TIME_ZONE": "Mars/Base"], "'timeZone' is 'Mars/Base' but must be an IANA time zone such as Europe/Berlin"),
            (["TODO_LOG_LEVEL": "loud"], "'logLevel' is 'loud'"),
            (["TODO_PUBLIC_URL": "ftp://x"], "'publicUrl' is 'ftp://x'"),
            (["TODO_MAX_URI_BYTES": "40000"], "'maxUriBytes' is '40000' but must be less than maxHeaderBytes (32768)"),
            (["TODO_FSYNC": "sometimes"], "'fsync' is 'sometimes' but must be one of always, interval, never"),
            (["TODO_COMPACTION_BYTES": "100"], "'compactionBytes' is '100' but must be an integer from 4096"),
            (["TODO_RECOVER": "yes"], "'recover' is 'yes' but must be one of off, truncate"),
        ])
    func badValues(environment: [String: String], message: String) throws {
        let error = try #require(loadError(environment: environment))
        #expect(error.description.contains(message), "\(error.description)")
        #expect(error.description.hasSuffix("(set by \(ServerConfiguration.environmentName(error.key)))"), "\(error.description)")
    }

    @Test("names: flag and environment variable of a key")
    func names() {
        #expect(ServerConfiguration.flagName("maxBodyBytes") == "max-body-bytes")
        #expect(ServerConfiguration.environmentName("maxUriBytes") == "TODO_MAX_URI_BYTES")
        #expect(ServerConfiguration.environmentName("publicUrl") == "TODO_PUBLIC_URL")
        #expect(ServerConfiguration.environmentName("corsMaxAgeSeconds") == "TODO_CORS_MAX_AGE_SECONDS")
    }

    @Test("a missing explicit file is an error")
    func missingFile() {
        #expect {
            try ServerConfiguration.load(flags: [:], environment: [:], filePath: "/nonexistent/todo.json")
        } throws: { error in
            "\(error)"
                == "invalid configuration: config file /nonexistent/todo.json cannot be read: No such file or directory (set by --config)"
        }
    }

}
