import Foundation
import Testing

@testable import TodoServer

@Suite("ServerConfiguration: strict file, one named source per error")
struct StrictConfigurationTests: ConfigurationFixtures {
    @Test(
        "a file value of the wrong type or range names key, value and the file",
        arguments: [
            (#"{"port": 19023.5}"#, "'port' is 19023.5 but must be an integer from 0 to 65535", "port"),
            (#"{"port": "8080"}"#, #"'port' is "8080" but must be an integer from 0 to 65535"#, "port"),
            (#"{"port": -1}"#, "'port' is -1 but must be an integer from 0 to 65535", "port"),
            (#"{"fsync": 1}"#, "'fsync' is 1 but must be one of always, interval, never", "fsync"),
            (
                #"{"logLevel": true}"#, "'logLevel' is true but must be one of trace, debug, info, notice, warning, error, critical",
                "logLevel"
            ),
            (#"{"threads": 1.5}"#, "'threads' is 1.5 but must be an integer from 0 to 1024", "threads"),
            (#"{"metricsPublic": "yes"}"#, #"'metricsPublic' is "yes" but must be true or false"#, "metricsPublic"),
            (#"{"host": null}"#, "'host' is null but must be a host name or address", "host"),
            (
                #"{"corsOrigin": "https://a.example/"}"#, #"'corsOrigin' is "https://a.example/" but must be * or a comma-separated list"#,
                "corsOrigin"
            ),
        ])
    func wrongTypes(json: String, message: String, key: String) throws {
        let path = try writeFile(json)
        let error = try #require(loadError(filePath: path))
        #expect(error.key == key)
        #expect(error.description.contains(message), "\(error)")
        #expect(error.description.hasSuffix("(set by '\(key)' in \(path))"), "\(error)")
    }

    @Test("an unknown key is refused, with the key it is closest to")
    func unknownKey() throws {
        let path = try writeFile(#"{"port": 8080, "prot": 8081}"#)
        let error = try #require(loadError(filePath: path))
        #expect(error.description == "invalid configuration: 'prot' in \(path) is not a setting (did you mean 'port'?)")
        let far = try writeFile(#"{"colour": "red"}"#)
        #expect(loadError(filePath: far)?.description == "invalid configuration: 'colour' in \(far) is not a setting")
    }

    @Test(
        "JSON the request bodies would refuse is refused, with line and column",
        arguments: [
            ("{\"port\": 8080,\n}", "is not valid JSON: trailing comma in object at line 2, column 1"),
            (#"{"port": 8080, "port": 8081}"#, #"is not valid JSON: duplicate key "port" at line 1, column 16"#),
            ("", "is empty; write {} for a file that sets nothing"),
            ("  \n", "is empty; write {} for a file that sets nothing"),
            ("[8080]", "must hold one JSON object, not an array"),
            (#"{"port": 8080} x"#, "is not valid JSON: unexpected data after the JSON value at line 1, column 16"),
        ])
    func malformedFile(json: String, problem: String) throws {
        let path = try writeFile(json)
        let error = try #require(loadError(filePath: path))
        #expect(error.description == "invalid configuration: config file \(path) \(problem) (set by --config)")
    }

    @Test("an unreadable file says why, naming TODO_CONFIG when that named it")
    func unreadableFile() throws {
        let directory = FileManager.default.temporaryDirectory.path
        let error = try #require(loadError(environment: ["TODO_CONFIG": directory]))
        #expect(error.description == "invalid configuration: config file \(directory) cannot be read: Is a directory (set by TODO_CONFIG)")
    }

    @Test("each error names the one source that set the value")
    func oneSource() throws {
        let path = try writeFile(#"{"port": 70000, "threads": 2000}"#)
        #expect(loadError(filePath: path)?.description.hasSuffix("(set by 'port' in \(path))") == true)
        #expect(
            loadError(environment: ["TODO_PORT": "70000"], filePath: path)?.description
                == "invalid configuration: 'port' is '70000' but must be an integer from 0 to 65535 (set by TODO_PORT)")
        #expect(
            loadError(flags: ["port": "-1"], environment: ["TODO_PORT": "80"], filePath: path)?.description
                == "invalid configuration: 'port' is '-1' but must be an integer from 0 to 65535 (set by --port)")
        // A valid flag over the file's bad port: the next bad key is the file's threads.
        #expect(loadError(flags: ["port": "80"], filePath: path)?.description.contains("'threads' is 2000") == true)
        #expect(
            loadError(flags: ["maxHeaderBytes": "4096"], filePath: try writeFile("{}"))?.description
                == "invalid configuration: 'maxHeaderBytes' is '4096' but must be more than maxUriBytes (8192) (set by --max-header-bytes)")
    }

    @Test("negative numbers parse as numbers and fail the range check", arguments: ["port", "threads", "maxBodyBytes", "timeoutSeconds"])
    func negative(key: String) throws {
        let error = try #require(loadError(flags: [key: "-1"]))
        #expect(error.value == "'-1'")
        #expect(error.expected.hasPrefix("an integer from "))
    }

    @Test("the provenance records the file read and each key's source; a missing default file is recorded")
    func provenance() throws {
        let path = try writeFile(#"{"port": 7000, "host": "0.0.0.0"}"#)
        let configuration = try ServerConfiguration.load(flags: ["threads": "2"], environment: ["TODO_PORT": "7100"], filePath: path)
        #expect(configuration.provenance.file == .used(path))
        #expect(configuration.provenance.sources["port"] == .environment("TODO_PORT"))
        #expect(configuration.provenance.sources["host"] == .file(key: "host", path: path))
        #expect(configuration.provenance.sources["threads"] == .flag("--threads"))
        #expect(configuration.provenance.sources["timeZone"] == nil)

        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("todo-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let defaults = try ServerConfiguration.load(flags: [:], environment: [:], filePath: nil, workingDirectory: empty)
        #expect(defaults.provenance.file == .missingDefault(empty + "/Config/todo-server.json"))
        #expect(defaults.port == 8080)
    }

    @Test("TODO_* variables that name no setting are recorded with a suggestion and change nothing")
    func ignoredVariables() throws {
        let configuration = try ServerConfiguration.load(
            flags: [:],
            environment: ["TODO_PROT": "9000", "TODO_PORT": "7100", "TODO_BINARY": "/bin/x", "HOME": "/root", "todo_port": "1"],
            filePath: nil, workingDirectory: FileManager.default.temporaryDirectory.path)
        #expect(configuration.port == 7100)
        #expect(
            configuration.provenance.ignoredVariables == [
                .init(name: "TODO_BINARY", suggestion: nil), .init(name: "TODO_PROT", suggestion: "TODO_PORT"),
            ])
    }

    @Test("tokens from a list, a variable and a file; never shown in errors or the dump")
    func tokens() throws {
        let tokenFile = try writeFile("# deploy tokens\nfile-token-1\n\n  file-token-2  \n")
        let configuration = try ServerConfiguration.load(
            flags: ["readTokens": "reader-1, reader-2"], environment: ["TODO_AUTH_TOKENS": "writer-1", "TODO_AUTH_TOKENS_FILE": tokenFile],
            filePath: nil)
        #expect(configuration.authTokens == ["writer-1", "file-token-1", "file-token-2"])
        #expect(configuration.readTokens == ["reader-1", "reader-2"])
        #expect(configuration.requiresTokens)
        let dump = configuration.dump.map { "\($0.key)=\($0.value) (\($0.source))" }
        #expect(dump.contains("authTokens=3 tokens (TODO_AUTH_TOKENS)"))
        #expect(dump.contains("readTokens=2 tokens (--read-tokens)"))
        #expect(!dump.joined().contains("writer-1") && !dump.joined().contains("file-token") && !dump.joined().contains("reader-1"))

        let bad = try #require(loadError(environment: ["TODO_AUTH_TOKENS": "good-token,bad token"]))
        #expect(!bad.description.contains("good-token") && !bad.description.contains("bad token"), "\(bad)")
        #expect(bad.description.hasPrefix("invalid configuration: 'authTokens' is (a value not shown) but must be bearer tokens"))
        #expect(bad.description.hasSuffix("(set by TODO_AUTH_TOKENS)"))

        let missing = try #require(loadError(flags: ["readTokensFile": "/nonexistent/tokens"]))
        #expect(
            missing.description.contains(
                "'readTokensFile' is '/nonexistent/tokens' but must be a readable file of bearer tokens, one per line (No such file or directory)"
            ))
        let blank = try writeFile("\n# none yet\n")
        #expect(loadError(flags: ["authTokensFile": blank])?.description.contains("(the file holds no token)") == true)
        let array = try writeFile(#"{"readTokens": ["r-1", "r-2"]}"#)
        #expect(try ServerConfiguration.load(flags: [:], environment: [:], filePath: array).readTokens == ["r-1", "r-2"])
    }

    @Test("CORS: * or a list of origins; credentials only with a list")
    func cors() throws {
        let listed = try ServerConfiguration.load(
            flags: ["corsOrigin": "https://a.example, http://b.example:8080", "corsCredentials": "true"], environment: [:], filePath: nil)
        #expect(listed.corsCredentials)
        for bad in [
            "https://a.example/", "a.example", "https://a.example,", "https://a.example, *", "http://a b.example",
            "https://a.example:99999",
        ] {
            let error = try #require(loadError(flags: ["corsOrigin": bad]), "\(bad)")
            #expect(error.key == "corsOrigin")
            #expect(error.description.hasSuffix("(set by --cors-origin)"))
        }
        #expect(
            loadError(environment: ["TODO_CORS_CREDENTIALS": "true"])?.description
                == "invalid configuration: 'corsCredentials' is 'true' but must be false while corsOrigin is * "
                + "(list the origins that may send credentials in corsOrigin) (set by TODO_CORS_CREDENTIALS)")
    }

    @Test("every key is declared once: flag, variable, default, help")
    func declarations() {
        let keys = ServerConfiguration.settingKeys
        #expect(Set(keys).count == keys.count)
        #expect(keys.contains("authTokens") && keys.contains("logFormat") && keys.contains("corsCredentials"))
        #expect(ServerConfiguration.help(for: "port") == "Port to bind; 0 picks a free one. (default 8080)")
        #expect(!ServerConfiguration.help(for: "authTokens").contains("default"))
    }
}
