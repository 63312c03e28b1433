import Foundation
import Glibc
import TestSupport
import Testing

@testable import TodoServer

@Suite("End to end: the todo-server process's configuration, banner and logs", .tags(.endToEnd))
struct StartupAndLogsEndToEndTests {
    private func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("todo-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("a bad config file stops start-up naming key, value and file; no Cocoa error text")
    func badFile() throws {
        let directory = try temporaryDirectory()
        let path = directory + "/bad.json"
        try #"{"port": 19023.5}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let server = try ServerProcess(arguments: ["--config", path])
        try #require(server.waitForExit() == 64)
        let errors = server.standardError
        #expect(
            errors
                == "todo-server: invalid configuration: 'port' is 19023.5 but must be an integer from 0 to 65535 (set by 'port' in \(path))\n"
        )

        try "".write(toFile: path, atomically: true, encoding: .utf8)
        let empty = try ServerProcess(arguments: [], environment: ["TODO_CONFIG": path])
        try #require(empty.waitForExit() == 64)
        let emptyErrors = empty.standardError
        #expect(emptyErrors.contains("config file \(path) is empty; write {} for a file that sets nothing (set by TODO_CONFIG)"))
        #expect(!emptyErrors.contains("NSCocoaErrorDomain"))
    }

    @Test("--port -1 is a number out of range, not a missing value; --version prints the version")
    func negativeAndVersion() throws {
        let negative = try ServerProcess(arguments: ["--port", "-1"])
        try #require(negative.waitForExit() == 64)
        #expect(negative.standardError.contains("'port' is '-1' but must be an integer from 0 to 65535 (set by --port)"))
        let version = try ServerProcess(arguments: ["--version"])
        #expect(version.waitForExit() == 0)
        #expect(version.remainingOutput == SystemInteractor.version + "\n")
    }

    @Test("--help has a flag for every setting, each set as the loader reads it")
    func everySettingHasAFlag() throws {
        let help = try ServerProcess(arguments: ["--help"])
        try #require(help.waitForExit() == 0)
        let text = help.remainingOutput
        for key in ServerConfiguration.settingKeys {
            #expect(text.contains("--\(ServerConfiguration.flagName(key)) <"), "\(key)")
        }
    }

    @Test("the banner: URL, the missing default config file, the store, access, loops")
    func banner() throws {
        let directory = try temporaryDirectory()
        let server = try ServerProcess(arguments: ["--port", "0", "--threads", "2"], workingDirectory: directory)
        let port = try server.waitForPort()
        let listening = try server.waitForLine(containing: "listening")
        #expect(listening.hasSuffix("listening on http://127.0.0.1:\(port)/"), "binds loopback by default")
        #expect(
            try server.waitForLine(containing: "config file").hasSuffix(
                "notice todo-server: no config file at \(directory)/Config/todo-server.json: using flags, TODO_* variables and built-in defaults"
            ))
        #expect(
            try server.waitForLine(containing: "store:").hasSuffix(
                "store: in memory — set TODO_DATA_DIR or TODO_DATABASE_URL to keep to-dos"))
        #expect(try server.waitForLine(containing: "access:").contains("no token needed"))
        #expect(try server.waitForLine(containing: "loops:").contains("loops: 2 event-loop threads"))
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
    }

    @Test("logFormat json: one JSON object per line, the config file named")
    func jsonLines() throws {
        let directory = try temporaryDirectory()
        let path = directory + "/todo.json"
        try #"{"logFormat": "json", "port": 0}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let server = try ServerProcess(arguments: ["--config", path, "--auth-tokens", "tok-1"])
        let listening = try server.waitForLine(containing: "listening")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(listening.utf8)) as? [String: String])
        #expect(object["level"] == "info")
        #expect(object["label"] == "todo-server")
        let port = try #require(object["port"].flatMap { Int($0) })
        #expect(object["message"] == "listening on http://127.0.0.1:\(port)/")
        #expect(object["time"]?.hasSuffix("Z") == true)
        let file = try server.waitForLine(containing: "config file")
        #expect(file.contains("config file: \(path)"))
        #expect(try server.waitForLine(containing: "access:").contains("bearer tokens required (1 read-write, 0 read-only)"))
        _ = try TestHTTPClient(port: port).request("GET", "/todos?limit=1", headers: [("Authorization", "Bearer tok-1")])
        let access = try server.waitForLine(containing: "GET /todos?limit=1 200")
        let line = try #require(try JSONSerialization.jsonObject(with: Data(access.utf8)) as? [String: String])
        #expect(line["client"]?.hasPrefix("127.0.0.1:") == true)
        #expect(line["request_id"]?.count == 16)
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
        #expect(!server.remainingOutput.contains("tok-1"))
    }

    @Test("without a database URL or JWT keys the server maps neither libpq, libcrypto nor libcurl (each is opened on first use)")
    func noLibpqWithoutADatabase() throws {
        let server = try ServerProcess(arguments: ["--port", "0", "--host", "127.0.0.1"])
        let port = try server.waitForPort()
        let client = try TestHTTPClient(port: port)
        #expect(try client.request("GET", "/healthz").status == 200)
        // Read to the end with read(2): /proc files report size 0, and Foundation's reader returned
        // only the first part of a ThreadSanitizer process's long maps (its shadow regions).
        let fd = open("/proc/\(server.process.processIdentifier)/maps", O_RDONLY)
        try #require(fd >= 0)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        close(fd)
        let maps = String(decoding: bytes, as: UTF8.self)
        #expect(maps.contains("todo-server"), "the maps of the server process")
        #expect(maps.contains("libevent"), "the libraries it maps are listed")
        #expect(!maps.contains("libpq"))
        #expect(!maps.contains("libcrypto"))
        #expect(!maps.contains("libcurl"))
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
    }

    @Test("a stdout nobody reads never stops the loops; dropped lines are counted, then reported")
    func stalledStdout() throws {
        let server = try ServerProcess(arguments: ["--port", "0", "--host", "127.0.0.1", "--threads", "2", "--log-buffer-bytes", "4096"])
        let port = try server.waitForPort()
        server.stopReading()
        // ~120-byte access lines: 64 KiB of pipe and 4 KiB of buffer hold ~600; 3000 must all be answered.
        let client = try TestHTTPClient(port: port)
        for index in 0..<3000 {
            let response = try client.request("GET", "/todos?n=\(index)")
            try #require(response.status == 200, "request \(index)")
        }
        let metrics = try client.request("GET", "/metrics").text
        let droppedLine = try #require(metrics.split(separator: "\n").first { $0.hasPrefix("log_lines_dropped_total ") })
        let dropped = try #require(Int(droppedLine.split(separator: " ")[1]))
        #expect(dropped > 1000)
        server.resumeReading()
        let notice = try server.waitForLine(containing: "log lines dropped")
        #expect(notice.contains("warning todo-server: dropped="))
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
        let output = server.remainingOutput
        let reported = output.split(separator: "\n").filter { $0.contains("log lines dropped") }.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("dropped=") }.flatMap { Int($0.dropFirst(8)) }
        }
        #expect(reported.reduce(0, +) >= dropped)
        #expect(output.hasSuffix("stopped\n"), "flushed at shutdown")
    }
}
