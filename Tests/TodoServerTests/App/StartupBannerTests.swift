import Logging
import Testing

@testable import TodoData
@testable import TodoServer

@Suite("StartupBanner: the lines start-up writes")
struct StartupBannerTests {
    @Test(
        "the URL a browser opens: wildcards become localhost, bare IPv6 addresses get brackets",
        arguments: [
            ("0.0.0.0", "http://localhost:8080/"), ("::", "http://localhost:8080/"), ("[::]", "http://localhost:8080/"),
            ("::1", "http://[::1]:8080/"), ("[::1]", "http://[::1]:8080/"), ("example.com", "http://example.com:8080/"),
        ])
    func url(host: String, expected: String) {
        var configuration = ServerConfiguration()
        configuration.host = host
        #expect(StartupBanner(configuration: configuration, port: 8080).url == expected)
    }

    @Test("the config file line: used at info, a missing default at notice, none when built in code")
    func configFile() {
        var configuration = ServerConfiguration()
        configuration.provenance.file = .used("/etc/todo.json")
        #expect(StartupBanner(configuration: configuration, port: 1).configFileLine == (.info, "config file: /etc/todo.json"))
        configuration.provenance.file = .missingDefault("./todo-server.json")
        #expect(
            StartupBanner(configuration: configuration, port: 1).configFileLine
                == (.notice, "no config file at ./todo-server.json: using flags, TODO_* variables and built-in defaults"))
        configuration.provenance.file = .notLoaded
        #expect(
            StartupBanner(configuration: configuration, port: 1).configFileLine == (
                .info, "config file: none (configuration built in code)"
            ))
    }

    @Test("one warning per ignored TODO_* variable, with its suggestion when there is one")
    func ignoredVariables() {
        var configuration = ServerConfiguration()
        #expect(StartupBanner(configuration: configuration, port: 1).ignoredVariableLines == [])
        configuration.provenance.ignoredVariables = [
            .init(name: "TODO_BINARY", suggestion: nil), .init(name: "TODO_PROT", suggestion: "TODO_PORT"),
        ]
        #expect(
            StartupBanner(configuration: configuration, port: 1).ignoredVariableLines == [
                "ignored environment variable TODO_BINARY: not a setting",
                "ignored environment variable TODO_PROT: not a setting (did you mean TODO_PORT?)",
            ])
    }

    @Test("the store line names the directory and fsync mode, or says the store is in memory")
    func store() {
        var configuration = ServerConfiguration()
        #expect(
            StartupBanner(configuration: configuration, port: 1).storeLine
                == "store: in memory — set TODO_DATA_DIR or TODO_DATABASE_URL to keep to-dos")
        configuration.dataDirectory = "/data"
        configuration.fsync = .always
        #expect(StartupBanner(configuration: configuration, port: 1).storeLine == "store: journal in /data (fsync always)")
    }

    @Test("the access line warns when no token is needed, or counts the tokens without showing them")
    func access() {
        var configuration = ServerConfiguration()
        configuration.host = "0.0.0.0"
        #expect(
            StartupBanner(configuration: configuration, port: 9).accessLine
                == "access: no token needed — anyone who reaches 0.0.0.0:9 may read and change to-dos")
        configuration.authTokens = ["w1", "w2"]
        configuration.readTokens = ["r1"]
        configuration.metricsPublic = true
        let line = StartupBanner(configuration: configuration, port: 9).accessLine
        #expect(line == "access: bearer tokens required (2 read-write, 1 read-only); /metrics public")
    }

    @Test("the access line says which identity sources are on: owner tokens by count, JWTs by issuer and audience, never a secret")
    func identitySources() {
        var configuration = ServerConfiguration()
        configuration.ownerTokens = [
            OwnerToken(owner: Owner(name: "alice")!, token: "secret-a1"), OwnerToken(owner: Owner(name: "alice")!, token: "secret-a2"),
            OwnerToken(owner: Owner(name: "bob")!, token: "secret-b"),
        ]
        configuration.jwtJwksFile = "/run/secrets/jwks.json"
        configuration.jwtIssuer = "https://id.example"
        configuration.jwtAudience = "todo-api"
        let line = StartupBanner(configuration: configuration, port: 9).accessLine
        #expect(
            line
                == "access: bearer tokens required (0 read-write, 0 read-only, 3 owner tokens for 2 owners, JSON Web Tokens of https://id.example "
                + "for todo-api (owner claim sub, keys from /run/secrets/jwks.json); each owner sees only their own to-dos); /metrics needs a token"
        )
        #expect(!line.contains("secret-"))
    }

    @Test("the live feed line says how to subscribe, and across instances with a database")
    func feedLine() {
        var configuration = ServerConfiguration()
        #expect(
            StartupBanner(configuration: configuration, port: 8080).feedLine
                == "live feed: curl -N http://127.0.0.1:8080/todos/events (Server-Sent Events; resume with Last-Event-ID; 10000 changes retained)"
        )
        configuration.databaseURL = "postgres://db/todos"
        configuration.eventsRetained = 50
        #expect(
            StartupBanner(configuration: configuration, port: 1).feedLine.hasSuffix(
                "50 changes retained, across every instance on the database)"))
    }
}
