import Foundation
import Glibc
import Testing

/// The built `todo-server` executable run as a child process, as an operator would run it.
package final class ServerProcess {
    package let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private let captured = Captured()
    private let capturedErrors = Captured()
    /// Whether standard output is read (`stopReading`, `resumeReading`).
    private let outputGate = ReadGate()

    /// Standard output read so far; a handler drains the pipe so that the server never blocks on it.
    final class Captured: @unchecked Sendable {
        private let lock = NSLock()
        private var text = ""
        private var ended = false

        /// Appends a read; an empty read is the end of the pipe (the process and its children exited).
        func append(_ data: Data) {
            lock.withLock {
                if data.isEmpty { ended = true }
                text += String(decoding: data, as: UTF8.self)
            }
        }
        var value: String { lock.withLock { text } }
        var isEnded: Bool { lock.withLock { ended } }
    }

    /// The executable next to the test bundle in the build folder.
    static var executableURL: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("todo-server")
    }

    /// `workingDirectory`: where the process runs (and looks for `Config/`); the tests' own by default.
    /// `openFileLimit` runs the server under that RLIMIT_NOFILE (through `prlimit`, which execs it:
    /// the process id stays the server's).
    package init(
        arguments: [String], environment: [String: String] = [:], workingDirectory: String? = nil,
        openFileLimit: Int? = nil
    ) throws {
        if let openFileLimit {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            process.arguments = ["--nofile=\(openFileLimit):\(openFileLimit)", Self.executableURL.path] + arguments
        } else {
            process.executableURL = Self.executableURL
            process.arguments = arguments
        }
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TODO_") }
            .merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        Self.read(errors.fileHandleForReading, into: capturedErrors, gate: ReadGate())
        Self.read(output.fileHandleForReading, into: captured, gate: outputGate)
    }

    /// Stops reading standard output (after the read under way, at most one pipe's worth): the
    /// pipe fills (64 KiB) and the server's writes to it stall, as with a log collector that hangs.
    package func stopReading() {
        outputGate.set(paused: true)
    }

    /// Reads standard output again (the default from the start).
    package func resumeReading() {
        outputGate.set(paused: false)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Reads `handle` to its end with blocking reads on a thread of its own, which keeps the handle
    /// (and so its descriptor) until then. Not `readabilityHandler`: tearing down its dispatch read
    /// source races libdispatch's epoll bookkeeping on Linux, a use-after-free that crashed the test
    /// process in `_dispatch_event_loop_drain` (swift-corelibs-libdispatch#949; with
    /// MALLOC_PERTURB_ set, every run of the suite crashed there while a process exited).
    private static func read(_ handle: FileHandle, into captured: Captured, gate: ReadGate) {
        Thread.detachNewThread {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                gate.waitWhilePaused()
                let count = chunk.withUnsafeMutableBytes { Glibc.read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                captured.append(Data(chunk[..<count]))
            }
            captured.append(Data())  // the end of the pipe
        }
    }

    /// Holds a reader back while paused.
    final class ReadGate: @unchecked Sendable {
        private let condition = NSCondition()
        private var paused = false

        func set(paused: Bool) {
            condition.withLock {
                self.paused = paused
                condition.broadcast()
            }
        }

        func waitWhilePaused() {
            condition.withLock {
                while paused { condition.wait() }
            }
        }
    }

    /// Reads standard output until a line contains `marker`; returns that line.
    package func waitForLine(containing marker: String, timeout: Duration = .seconds(20)) throws -> String {
        let line = eventually(timeout: timeout) {
            captured.value.split(separator: "\n").first(where: { $0.contains(marker) }).map(String.init)
        }
        guard let line else { throw CocoaError(.fileReadUnknown) }
        return line
    }

    /// The port from the `listening` log line.
    package func waitForPort() throws -> Int {
        let line = try waitForLine(containing: "listening")
        let field = try #require(line.split(separator: " ").first { $0.hasPrefix("port=") })
        return try #require(Int(field.dropFirst(5)))
    }

    package func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for exit; returns the status, or nil when it is still running after `timeout`.
    package func waitForExit(timeout: Duration = .seconds(20)) -> Int32? {
        guard eventually(timeout: timeout, { !process.isRunning }) else { return nil }
        return process.terminationStatus
    }

    /// Standard error so far (all of it once the process has exited); drained as it comes, so a
    /// server that writes a lot there never blocks on the pipe.
    package var standardError: String {
        if !process.isRunning { eventually { capturedErrors.isEnded } }
        return capturedErrors.value
    }

    /// Lines of standard output so far that contain `marker`.
    package func lines(containing marker: String) -> [Substring] {
        captured.value.split(separator: "\n").filter { $0.contains(marker) }
    }

    /// CPU time the process has used (user plus system), in clock ticks, from /proc/PID/stat.
    package func cpuTicks() throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)
        // Fields after the parenthesised command name: state is the first, utime the 12th, stime the 13th.
        let fields = try #require(stat.split(separator: ")").last).split(separator: " ")
        return try #require(Int(fields[11])) + (try #require(Int(fields[12])))
    }

    /// Standard output so far (all of it once the process has exited).
    package var remainingOutput: String {
        // The reading thread reaches the pipe's end soon after the exit; on a machine loaded enough
        // to make a 1 s test take 55 s (a whole suite, 2026-12-07), 5 s was once not enough.
        if !process.isRunning { eventually { captured.isEnded } }
        return captured.value
    }
}
