import Foundation
import Glibc
import TestSupport
import Testing
import TodoServer

@Suite("End to end: the todo-server process", .tags(.endToEnd))
struct ProcessEndToEndTests {
    @Test("SIGTERM: stops accepting, finishes the response in flight, exits 0")
    func sigterm() throws {
        let (server, port, reader) = try DrainLoad.answerInFlight(arguments: [
            "--port", "0", "--threads", "2", "--host", "127.0.0.1", "--shutdown-grace-seconds", "15",
        ])
        server.signal(SIGTERM)
        // Every loop closes its listener; poll, since a slow build (TSan) takes a while to get there.
        let refused = eventually(timeout: .seconds(5), interval: .milliseconds(50)) { (try? TestHTTPClient(port: port)) == nil }
        #expect(refused, "new connections must be refused after SIGTERM")
        #expect(server.process.isRunning, "the server must wait for the response in flight")
        let upcoming = try reader.readResponse()
        #expect(upcoming.status == 200)
        let sections = upcoming.object["sections"] as? [[String: Any]]
        #expect((sections?.first?["items"] as? [Any])?.count == 8000)
        #expect(server.waitForExit() == 0)
        #expect(server.remainingOutput.contains("stopped"))
    }

    @Test("SIGINT on an idle server exits 0 at once")
    func sigint() throws {
        let server = try ServerProcess(arguments: ["--port", "0", "--host", "127.0.0.1"])
        _ = try server.waitForPort()
        server.signal(SIGINT)
        #expect(server.waitForExit() == 0)
        #expect(server.remainingOutput.contains("stopped"))
    }

    @Test("SIGHUP neither stops nor disturbs the server: it is logged as ignored")
    func sighup() throws {
        let server = try ServerProcess(arguments: ["--port", "0", "--host", "127.0.0.1", "--threads", "2"])
        let port = try server.waitForPort()
        let client = try TestHTTPClient(port: port)
        #expect(try client.request("POST", "/todos", body: #"{"title":"kept"}"#).status == 201)
        server.signal(SIGHUP)
        _ = try server.waitForLine(containing: "SIGHUP ignored")
        #expect(server.process.isRunning)
        let list = try TestHTTPClient(port: port).request("GET", "/todos")
        #expect(list.status == 200)
        #expect(list.text.contains("kept"))
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
        #expect(server.remainingOutput.contains("stopped"))
    }

    @Test("SIGTERM with a data directory: the HTTP service drains first, then the store closes; the change is there after restart")
    func shutdownOrder() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifecycle-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let arguments = ["--port", "0", "--host", "127.0.0.1", "--data-dir", directory]
        let server = try ServerProcess(arguments: arguments)
        let port = try server.waitForPort()
        #expect(try TestHTTPClient(port: port).request("POST", "/todos", body: #"{"title":"durable"}"#).status == 201)
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
        let lines = server.remainingOutput.split(separator: "\n")
        let stopped = try #require(lines.firstIndex { $0.hasSuffix(" stopped") })
        let closed = try #require(lines.firstIndex { $0.hasSuffix(" store closed") })
        #expect(stopped < closed, "the store must close after the HTTP loops stopped")

        let restarted = try ServerProcess(arguments: arguments)
        let list = try TestHTTPClient(port: try restarted.waitForPort()).request("GET", "/todos")
        #expect(list.text.contains("durable"))
        restarted.signal(SIGINT)
        #expect(restarted.waitForExit() == 0)
    }

    @Test("environment configures the process; a bad value stops start-up naming key and value")
    func configuration() throws {
        let bad = try ServerProcess(arguments: [], environment: ["TODO_PORT": "eighty"])
        #expect(bad.waitForExit() != 0)
        #expect(bad.standardError.contains("'port' is 'eighty' but must be an integer from 0 to 65535"))

        let badFlag = try ServerProcess(arguments: ["--time-zone", "Mars/Base"])
        #expect(badFlag.waitForExit() != 0)
        #expect(badFlag.standardError.contains("'timeZone' is 'Mars/Base'"))

        let server = try ServerProcess(arguments: ["--host", "127.0.0.1"], environment: ["TODO_PORT": "0", "TODO_THREADS": "3"])
        let line = try server.waitForLine(containing: "listening")
        #expect(line.contains("threads=3"))
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
    }

    @Test("--help lists the flags and the environment variables")
    func help() throws {
        let help = try ServerProcess(arguments: ["--help"])
        #expect(help.waitForExit() == 0)
        let text = help.remainingOutput
        for flag in ["--port", "--max-body-bytes", "--max-uri-bytes", "--public-url", "--cors-origin", "--time-zone", "TODO_PORT"] {
            #expect(text.contains(flag), "\(flag)")
        }
    }
}
