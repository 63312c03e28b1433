import Foundation
import Glibc
import TestSupport
import Testing
import TodoServer

/// What an operator can get wrong, as the process meets it: settings that would run the server
/// open or hang its start (exit 64, naming the setting), and signals.
@Suite("End to end: the process refuses footguns; signals", .tags(.endToEnd))
struct FootgunsEndToEndTests {
    @Test("TODO_AUTH_TOKENS set but empty or white space stops start-up with 64, naming the variable", arguments: ["", "  "])
    func blankTokens(value: String) throws {
        let server = try ServerProcess(arguments: ["--port", "0"], environment: ["TODO_AUTH_TOKENS": value])
        try #require(server.waitForExit() == 64)
        #expect(
            server.standardError == "todo-server: invalid configuration: 'authTokens' is set but empty or white space: "
                + "give it a value, or unset it to run without tokens (set by TODO_AUTH_TOKENS)\n")
        #expect(server.remainingOutput.isEmpty, "nothing listened")
    }

    @Test("a FIFO as TODO_READ_TOKENS_FILE stops start-up with 64 at once instead of waiting for a writer")
    func fifoTokenFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("todo-fifo-\(UUID().uuidString)").path
        try #require(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let server = try ServerProcess(arguments: ["--port", "0"], environment: ["TODO_READ_TOKENS_FILE": path])
        try #require(server.waitForExit(timeout: .seconds(20)) == 64)
        #expect(
            server.standardError == "todo-server: invalid configuration: 'readTokensFile' is '\(path)' but must be a readable file "
                + "of bearer tokens, one per line (a FIFO, not a regular file) (set by TODO_READ_TOKENS_FILE)\n")
    }

    @Test("--cors-credentials true with null in --cors-origin stops start-up with 64, naming the setting")
    func credentialsWithNull() throws {
        let server = try ServerProcess(arguments: ["--port", "0", "--cors-origin", "null,https://a.example", "--cors-credentials", "true"])
        try #require(server.waitForExit() == 64)
        #expect(
            server.standardError.hasPrefix(
                "todo-server: invalid configuration: 'corsCredentials' is 'true' but must be false while corsOrigin lists null"))
        #expect(server.standardError.hasSuffix("(set by --cors-credentials)\n"))
    }

    @Test("SIGUSR1 and SIGUSR2 neither stop nor disturb the server: each is logged as ignored")
    func userSignals() throws {
        let server = try ServerProcess(arguments: ["--port", "0", "--host", "127.0.0.1", "--threads", "1"])
        let port = try server.waitForPort()
        #expect(try TestHTTPClient(port: port).request("POST", "/todos", body: #"{"title":"kept"}"#).status == 201)
        for (number, name, times) in [(SIGUSR1, "SIGUSR1", 1), (SIGUSR2, "SIGUSR2", 1), (SIGUSR1, "SIGUSR1", 2)] {
            server.signal(number)
            #expect(eventually { server.lines(containing: "\(name) ignored: the server has no use for it").count == times }, "\(name)")
            #expect(server.process.isRunning)
        }
        let list = try TestHTTPClient(port: port).request("GET", "/todos")
        #expect(list.status == 200)
        #expect(list.array.map { $0["title"] as? String } == ["kept"])
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
    }

    @Test(
        "a second SIGTERM or SIGINT while the drain waits for an answer in flight ends the process at once",
        arguments: [
            (SIGTERM, SIGTERM, Int32(128 + SIGTERM), "SIGTERM"), (SIGINT, SIGINT, Int32(128 + SIGINT), "SIGINT"),
            (SIGTERM, SIGINT, Int32(128 + SIGINT), "SIGINT"),
        ])
    func secondStopSignal(first: Int32, second: Int32, status: Int32, name: String) throws {
        // The drain waits for the answer in flight to the reader (open until the end).
        let (server, _, reader) = try DrainLoad.answerInFlight(arguments: [
            "--port", "0", "--host", "127.0.0.1", "--threads", "1", "--shutdown-grace-seconds", "120",
        ])
        defer { reader.close() }
        server.signal(first)
        _ = try server.waitForLine(containing: "shutdown requested, draining")
        #expect(server.process.isRunning, "the first signal drains: the answer in flight is still being read")
        let sent = ContinuousClock.now
        server.signal(second)
        #expect(server.waitForExit(timeout: .seconds(10)) == status)
        #expect(ContinuousClock.now - sent < .seconds(10), "not the 120 s grace period")
        #expect(server.standardError == "todo-server: \(name) again while draining: exiting at once\n")
    }
}
