import Foundation
import Logging
import Testing

@testable import PostgresLoop
@testable import TodoServer

/// `databaseUrl` and the PostgreSQL pool settings: how they load, what they refuse, and that the
/// password never reaches the banner, the dump or an error.
@Suite("Database configuration")
struct DatabaseConfigurationTests {
    private func loadError(flags: [String: String] = [:], environment: [String: String] = [:], filePath: String? = nil)
        -> ConfigurationError?
    {
        do {
            _ = try ServerConfiguration.load(flags: flags, environment: environment, filePath: filePath)
            return nil
        } catch {
            return error
        }
    }

    @Test func unsetKeepsTheInMemoryStoreAndTheDefaults() throws {
        let configuration = try ServerConfiguration.load(flags: [:], environment: [:], filePath: nil)
        #expect(configuration.databaseURL == nil)
        #expect(configuration.postgres == nil)
        #expect(configuration.databaseConnectionsPerLoop == 2)
        #expect(configuration.databasePipelineDepth == 8)
        #expect(configuration.databaseReadSpillMilliseconds == 20)
        #expect(configuration.databaseReadPipelineDepth == 32)
        #expect(configuration.databaseTimeoutMs == 2000)
        #expect(configuration.databaseClearLockWaitMilliseconds == 1000)
    }

    @Test func theUrlAndPoolSettingsLoadFromEveryLayer() throws {
        let url = "postgresql://todo:s3cret@127.0.0.1:5432/todo"
        let configuration = try ServerConfiguration.load(
            flags: ["databaseTimeoutMs": "750"],
            environment: [
                "TODO_DATABASE_URL": url, "TODO_DATABASE_CONNECTIONS_PER_LOOP": "3", "TODO_DATABASE_PIPELINE_DEPTH": "5",
                "TODO_DATABASE_READ_SPILL_MILLISECONDS": "0", "TODO_DATABASE_READ_PIPELINE_DEPTH": "12",
                "TODO_DATABASE_CLEAR_LOCK_WAIT_MILLISECONDS": "0",
            ], filePath: nil)
        #expect(configuration.databaseClearLockWaitMilliseconds == 0)
        let postgres = try #require(configuration.postgres)
        #expect(postgres.connectionString == url)
        #expect(postgres.connectionsPerLoop == 3)
        #expect(postgres.pipelineDepth == 5)
        #expect(postgres.timing.readSpillAfter == .zero)
        #expect(postgres.readPipelineDepth == 12)
        #expect(
            try ServerConfiguration.load(flags: [:], environment: ["TODO_DATABASE_URL": url], filePath: nil).postgres?.timing.readSpillAfter
                == .milliseconds(20))
        #expect(postgres.timing.requestTimeout == .milliseconds(750))
        #expect(configuration.provenance.sources["databaseUrl"] == .environment("TODO_DATABASE_URL"))
        let socket = try ServerConfiguration.load(
            flags: ["databaseUrl": "host=/run/postgresql dbname=todo"], environment: [:], filePath: nil)
        #expect(socket.databaseURL == "host=/run/postgresql dbname=todo")
    }

    @Test(
        "refused values name the key and what is expected",
        arguments: [
            (["TODO_DATABASE_URL": "host=db.example.com dbname=todo"], "needs a DNS lookup"),
            (["TODO_DATABASE_URL": "postgresql://todo@db.internal/todo"], "\"db.internal\" needs a DNS lookup"),
            (["TODO_DATABASE_URL": "host=/tmp dbname"], "cannot be parsed"),
            (["TODO_DATABASE_CONNECTIONS_PER_LOOP": "0"], "'databaseConnectionsPerLoop' is '0' but must be an integer from 1 to 64"),
            (["TODO_DATABASE_PIPELINE_DEPTH": "0"], "'databasePipelineDepth' is '0' but must be an integer from 1 to 1024"),
            (
                ["TODO_DATABASE_READ_PIPELINE_DEPTH": "1025"],
                "'databaseReadPipelineDepth' is '1025' but must be an integer from 1 to 1024"
            ),
            (
                ["TODO_DATABASE_READ_SPILL_MILLISECONDS": "501"],
                "'databaseReadSpillMilliseconds' is '501' but must be an integer from 0 to 500"
            ),
            (["TODO_DATABASE_TIMEOUT_MS": "5"], "'databaseTimeoutMs' is '5' but must be an integer from 10 to 600000"),
            (
                ["TODO_DATABASE_CLEAR_LOCK_WAIT_MILLISECONDS": "-1"],
                "'databaseClearLockWaitMilliseconds' is '-1' but must be an integer from 0 to 600000"
            ),
        ])
    func refused(environment: [String: String], message: String) throws {
        let error = try #require(loadError(environment: environment))
        #expect(error.description.contains(message), "\(error.description)")
        #expect(error.description.hasSuffix("(set by \(ServerConfiguration.environmentName(error.key)))"), "\(error.description)")
    }

    @Test func aUrlWithAPasswordIsNeverShownInAnError() throws {
        let error = try #require(loadError(environment: ["TODO_DATABASE_URL": "postgresql://todo:s3cret@db.example.com/todo"]))
        #expect(!error.description.contains("s3cret"), "\(error.description)")
        #expect(error.key == "databaseUrl")
    }

    @Test func dataDirTogetherWithDatabaseUrlNamesBothSources() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("todo-\(UUID().uuidString).json").path
        try #"{"dataDir": "/var/lib/todo"}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let error = try #require(loadError(flags: ["databaseUrl": "host=/run/postgresql"], filePath: path))
        #expect(
            error.description.contains("'databaseUrl' (set by --database-url) and 'dataDir' (set by 'dataDir' in \(path))"),
            "\(error.description)")
        #expect(loadError(environment: ["TODO_DATA_DIR": "/var/lib/todo", "TODO_DATABASE_URL": ""]) == nil)
    }

    @Test(
        "the password is masked",
        arguments: [
            ("postgresql://todo:s3cret@127.0.0.1:5432/todo", "postgresql://todo:***@127.0.0.1:5432/todo"),
            (
                "postgres://todo:s3:c@ret@[::1]/todo?password=other&sslmode=disable",
                "postgres://todo:***@[::1]/todo?password=***&sslmode=disable"
            ),
            ("postgresql://todo@127.0.0.1/todo", "postgresql://todo@127.0.0.1/todo"),
            ("host=/run/pg password=s3cret user=todo", "host=/run/pg password=*** user=todo"),
            ("host=/run/pg password = 'a \\' b' user=todo", "host=/run/pg password = *** user=todo"),
            ("host=/run/pg dbname=todo", "host=/run/pg dbname=todo"),
        ])
    func masking(url: String, shown: String) {
        #expect(PostgresConnectionString.masked(url) == shown)
    }

    /// Every option libpq marks secret, in both forms (the URI's keys percent-encoded too).
    @Test(
        "every secret libpq marks is masked",
        arguments: [
            ("host=/run/pg sslpassword=hunter2 user=todo", "host=/run/pg sslpassword=*** user=todo"),
            ("host=/run/pg sslpassword = 'hun ter2' password=hunter2", "host=/run/pg sslpassword = *** password=***"),
            (
                "postgresql://todo@[::1]/todo?sslpassword=hunter2&sslmode=disable",
                "postgresql://todo@[::1]/todo?sslpassword=***&sslmode=disable"
            ),
            ("postgresql://todo@[::1]/todo?ssl%70assword=hunter2", "postgresql://todo@[::1]/todo?ssl%70assword=***"),
            ("postgresql://todo:hun%74er2@[::1]/todo?pass%77ord=hunter2", "postgresql://todo:***@[::1]/todo?pass%77ord=***"),
            ("postgresql://todo:%68%75%6E%74%65%72%32@[::1]/todo", "postgresql://todo:***@[::1]/todo"),
        ])
    func everySecretIsMasked(url: String, shown: String) throws {
        #expect(PostgresConnectionString.masked(url) == shown)
        let options = try PostgresConnectionOptions.parse(url)
        #expect(options.secretKeywords.isSuperset(of: ["password", "sslpassword"]))
        #expect(!PostgresConnectionString.masked(url).contains("hunter2"))
    }

    @Test func aSecretTheMaskingDoesNotFindFallsBackToLibpqsReadingMasked() {
        // A password equal to the user name, or inside the socket path: the text masker's output
        // still holds the value, so the line is rebuilt from libpq's options, the value masked
        // wherever it is.
        #expect(PostgresConnectionString.masked("host=/run/pg user=todo password=todo") == "user=*** password=*** host=/run/pg")
        #expect(
            PostgresConnectionString.masked("host=/tmp/hunter2 sslpassword=hunter2 dbname='a b'")
                == "dbname='a b' host=/tmp/*** sslpassword=***")
    }

    /// libpq's parse messages quote the text (password included); they are shown without it.
    @Test(
        "an unparsable URL is never echoed",
        arguments: [
            "POSTGRESQL://todo:hunter2@127.0.0.1/db",
            "postgresql://todo:hunter2@[::1/todo",
            "host=/tmp password=hunter2 dbname",
            "host=/tmp password='hunter2",
            "postgresql://todo:hunter2@127.0.0.1/db?sslpassword=hunter2&%zz=1",
            "hunter2",
        ])
    func anUnparsableURLIsNeverEchoed(url: String) throws {
        #expect(PostgresConnectionString.masked(url) == PostgresConnectionString.unparsable)
        let error = try #require(loadError(environment: ["TODO_DATABASE_URL": url]))
        #expect(error.key == "databaseUrl")
        #expect(error.description.contains("cannot be parsed"), "\(error.description)")
        #expect(!error.description.contains("hunter2"), "\(error.description)")
    }

    @Test func libpqsParseMessageKeepsItsWordsButNotTheQuotedText() {
        #expect(
            PostgresConnectionString.withoutQuotedText(#"missing "=" after "POSTGRESQL://todo:hunter2@h/db" in connection info string"#)
                == #"missing "=" after "…" in connection info string"#)
        #expect(
            PostgresConnectionString.withoutQuotedText(
                #"end of string reached when looking for matching "]" in IPv6 host address in URI: "postgresql://todo:hunter2@[::1/todo""#)
                == #"end of string reached when looking for matching "]" in IPv6 host address in URI: "…""#)
        #expect(PostgresConnectionString.withoutQuotedText(#"unterminated "hunter2"#) == #"unterminated "…"#)
    }

    @Test func libpqsMessagesAreScrubbedOfTheSecrets() {
        #expect(
            PostgresConnectionString.scrubbed(#"socket "/tmp/hunter2/.s.PGSQL.5432" failed"#, secrets: ["hunter2"])
                == #"socket "/tmp/***/.s.PGSQL.5432" failed"#)
    }

    @Test func theBannerAndTheDumpShowTheDatabaseMasked() throws {
        let configuration = try ServerConfiguration.load(
            flags: [:], environment: ["TODO_DATABASE_URL": "host=127.0.0.1 user=todo password=s3cret dbname=todo"], filePath: nil)
        let banner = StartupBanner(configuration: configuration, port: 8080)
        #expect(
            banner.storeLine
                == "store: PostgreSQL at host=127.0.0.1 user=todo password=*** dbname=todo (2 connections per loop, 2000 ms deadline)")
        let dumped = try #require(configuration.dump.first { $0.key == "databaseUrl" })
        #expect(dumped.value == "host=127.0.0.1 user=todo password=*** dbname=todo")
    }
}
