import Foundation
import Glibc
import Testing

@testable import TodoServer

/// Settings an operator can get wrong without noticing: each stops start-up, naming the setting.
@Suite("ServerConfiguration: blank tokens, token files that are not files, credentials to null")
struct FootgunConfigurationTests: ConfigurationFixtures {
    @Test(
        "a token setting given as empty or white space is refused, naming the setting and its source",
        arguments: [
            ("authTokens", "TODO_AUTH_TOKENS", ""), ("authTokens", "TODO_AUTH_TOKENS", "  \t "),
            ("readTokens", "TODO_READ_TOKENS", ""), ("readTokens", "TODO_READ_TOKENS", " "),
            ("authTokensFile", "TODO_AUTH_TOKENS_FILE", ""), ("readTokensFile", "TODO_READ_TOKENS_FILE", "\t"),
        ])
    func blankVariable(key: String, variable: String, value: String) throws {
        let error = try #require(loadError(environment: [variable: value]))
        #expect(error.key == key)
        #expect(
            error.description == "invalid configuration: '\(key)' is set but empty or white space: "
                + "give it a value, or unset it to run without tokens (set by \(variable))")
    }

    @Test("a blank flag is refused too; in the file [] and \"\" (the shipped defaults) mean none, blank strings are refused")
    func blankFlagAndFile() throws {
        #expect(loadError(flags: ["authTokens": " "])?.description.hasSuffix("(set by --auth-tokens)") == true)
        let defaults = try writeFile(#"{"authTokens": [], "readTokens": [], "authTokensFile": "", "readTokensFile": ""}"#)
        let configuration = try ServerConfiguration.load(flags: [:], environment: [:], filePath: defaults)
        #expect(configuration.authTokens == [] && configuration.readTokens == [] && !configuration.requiresTokens)
        for json in [#"{"authTokens": ""}"#, #"{"authTokens": " "}"#, #"{"authTokens": [" "]}"#, #"{"authTokensFile": "  "}"#] {
            let path = try writeFile(json)
            let error = try #require(loadError(filePath: path), "\(json)")
            #expect(error.description.contains("is set but empty or white space"), "\(json)")
            #expect(error.description.hasSuffix("in \(path))"), "\(json)")
        }
    }

    @Test("a FIFO as a token file is refused at once, without opening it (an open would wait for a writer)")
    func fifo() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("todo-fifo-\(UUID().uuidString)").path
        try #require(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let started = ContinuousClock.now
        let error = try #require(loadError(environment: ["TODO_AUTH_TOKENS_FILE": path]))
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(
            error.description == "invalid configuration: 'authTokensFile' is '\(path)' but must be a readable file of bearer tokens, "
                + "one per line (a FIFO, not a regular file) (set by TODO_AUTH_TOKENS_FILE)")
    }

    @Test(
        "a directory, a device or a socket as a token file is refused, naming what it is",
        arguments: [
            ("/tmp", "Is a directory"), ("/dev/null", "a device, not a regular file"),
        ])
    func notAFile(path: String, reason: String) throws {
        let error = try #require(loadError(flags: ["readTokensFile": path]))
        #expect(
            error.description == "invalid configuration: 'readTokensFile' is '\(path)' but must be a readable file of bearer tokens, "
                + "one per line (\(reason)) (set by --read-tokens-file)")
    }

    @Test("a file the server may not read is refused with the system's reason (skipped as root, who reads anything)")
    func unreadable() throws {
        guard geteuid() != 0 else { return }
        let path = try writeFile("token-1\n")
        try #require(chmod(path, 0) == 0)
        #expect(loadError(flags: ["authTokensFile": path])?.description.contains("(Permission denied)") == true)
    }

    @Test("a symbolic link to a regular file (how container secrets are mounted) is read")
    func symlink() throws {
        let target = try writeFile("linked-token\n")
        let link = target + ".link"
        try #require(Glibc.symlink(target, link) == 0)
        defer { unlink(link) }
        #expect(
            try ServerConfiguration.load(flags: ["authTokensFile": link], environment: [:], filePath: nil).authTokens == ["linked-token"])
    }

    @Test("corsCredentials with null among the origins is refused, naming corsCredentials and its source")
    func credentialsWithNull() throws {
        let error = try #require(
            loadError(
                environment: ["TODO_CORS_ORIGIN": "https://a.example, null", "TODO_CORS_CREDENTIALS": "true"]))
        #expect(error.key == "corsCredentials")
        #expect(
            error.description == "invalid configuration: 'corsCredentials' is 'true' but must be false while corsOrigin lists null "
                + "(every file:// page and sandboxed frame sends Origin: null) (set by TODO_CORS_CREDENTIALS)")
        let path = try writeFile(#"{"corsOrigin": "null", "corsCredentials": true}"#)
        #expect(loadError(filePath: path)?.description.hasSuffix("(set by 'corsCredentials' in \(path))") == true)
        let withoutCredentials = try ServerConfiguration.load(
            flags: ["corsOrigin": "https://a.example, null"], environment: [:], filePath: nil)
        #expect(!withoutCredentials.corsCredentials)
    }
}
