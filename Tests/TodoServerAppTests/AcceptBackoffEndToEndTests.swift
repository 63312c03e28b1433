import Foundation
import Glibc
import TestSupport
import Testing

@Suite("End to end: accepting at the descriptor limit", .tags(.endToEnd))
struct AcceptBackoffEndToEndTests {
    @Test("at EMFILE the loops pause accepting instead of spinning, log once per interval, and resume once descriptors free up")
    func backoffAtDescriptorLimit() throws {
        let server = try ServerProcess(
            arguments: ["--port", "0", "--host", "127.0.0.1", "--threads", "2"], openFileLimit: 64)
        let port = try server.waitForPort()
        // More connections than the server has descriptors left: the kernel completes them all
        // (backlog 1024), the server's accept(2) fails with EMFILE on both loops.
        var clients = try (0..<100).map { _ in try TestHTTPClient(port: port) }
        let firstReports = eventually { server.lines(containing: "accept paused").count >= 2 ? true : false }
        try #require(firstReports, "no 'accept paused' line: \(server.remainingOutput.suffix(500))")
        let pausedLine = try #require(server.lines(containing: "accept paused").first)
        #expect(pausedLine.contains("errno=24"))
        #expect(pausedLine.contains("retry_ms=100"))

        // A window of at least two log intervals (one report per loop per second while paused):
        // a loop spinning on its readable listener would burn about 100 ticks per second each.
        let ticksBefore = try server.cpuTicks()
        let reportsBefore = server.lines(containing: "accept paused").count
        let windowPassed = eventually { server.lines(containing: "accept paused").count >= reportsBefore + 4 }
        try #require(windowPassed)
        let ticksUsed = try server.cpuTicks() - ticksBefore
        #expect(ticksUsed < 50, "\(ticksUsed) ticks of CPU while paused")
        // Later reports sum up the retries since the previous one instead of one line per attempt.
        let later = try #require(server.lines(containing: "accept paused").last)
        #expect(!later.contains("failures=1 "), "\(later)")
        #expect(server.standardError.utf8.count < 1024, "stderr: \(server.standardError.prefix(300))")

        clients.removeAll()
        // The server first drains the 100 closed connections still queued in its backlog: under a
        // sanitizer on a loaded machine that takes seconds, so try often (a 2 s receive time-out per
        // attempt) for up to a minute; a server that never resumes still fails here.
        let answered = eventually(timeout: .seconds(60)) { () -> Bool in
            guard let client = try? TestHTTPClient(port: port, receiveTimeoutSeconds: 2),
                let response = try? client.request("GET", "/healthz")
            else {
                return false
            }
            return response.status == 200
        }
        #expect(answered, "no answer after the connections closed")
        // Log lines reach stdout through the log writer's thread, after the answer.
        #expect(eventually { !server.lines(containing: "accepting again").isEmpty })
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
        #expect(server.standardError.utf8.count < 1024)
    }
}
