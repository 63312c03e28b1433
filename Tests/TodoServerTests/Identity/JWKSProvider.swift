import Foundation
import TestSupport

@testable import TodoData

/// An OpenID Connect provider's `jwks_uri`, played by `scripts/dev-tokens.py serve` (Python's
/// `http.server` and `ssl`): a JWK Set over HTTPS whose certificate a certificate authority made
/// for it signs (`caFile`). The test rotates keys, takes the provider down or changes its
/// `Cache-Control` by rewriting the files it answers from, and counts what it was asked.
final class JWKSProvider: @unchecked Sendable {
    let directory: String
    let port: Int
    private let process: Process

    var url: String { "https://127.0.0.1:\(port)/jwks.json" }
    /// The certificate authority that signed the provider's certificate (PEM).
    var caFile: String { directory + "/ca.pem" }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(serving document: [UInt8]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("todo-jwks-provider-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        process = Process()
        do {
            try Data(document).write(to: URL(fileURLWithPath: directory + "/jwks.json"))
            let interpreter = try IdentityFixture.interpreter()
            process.executableURL = URL(fileURLWithPath: interpreter[0])
            process.arguments = Array(interpreter.dropFirst()) + [IdentityFixture.script, "serve", directory, "--port", "0"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            // "port N" once it listens; end of file if it failed (its complaint went to stderr).
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { throw Failure(description: "dev-tokens.py serve exited before it listened") }
                line += chunk
            }
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.hasPrefix("port "), let port = Int(text.dropFirst(5)) else {
                throw Failure(description: "dev-tokens.py serve printed \(text)")
            }
            self.port = port
        } catch {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    deinit {
        // SIGKILL, not Process.terminate's SIGTERM: a child inherits the test process's signal
        // mask, in which SIGTERM may be blocked (the signal tests block it), and would outlive it.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Serves `document` from now on (written beside, then renamed over: never half of one).
    func serve(_ document: [UInt8]) throws {
        try write(document, to: "jwks.json")
    }

    /// Answers with `status` from now on (nil: 200).
    func answer(status: Int?) throws {
        try set("status", status.map { "\($0)" })
    }

    /// Sends this `Cache-Control` from now on (nil: none).
    func cacheControl(_ value: String?) throws {
        try set("cache-control", value)
    }

    /// The requests it answered so far.
    var requests: Int {
        let log = (try? String(contentsOfFile: directory + "/requests.log", encoding: .utf8)) ?? ""
        return log.split(separator: "\n").count
    }

    private func set(_ name: String, _ value: String?) throws {
        if let value {
            try write(Array(value.utf8), to: name)
        } else {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
    }

    private func write(_ bytes: [UInt8], to name: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: directory + "/" + name + ".new"))
        guard rename(directory + "/" + name + ".new", directory + "/" + name) == 0 else {
            throw Failure(description: "cannot rename \(name).new over \(name)")
        }
    }

    /// The keys of both documents in one set (a provider during a rotation publishes both).
    static func union(_ first: [UInt8], _ second: [UInt8]) throws -> [UInt8] {
        func keys(_ document: [UInt8]) throws -> [Any] {
            let object = try JSONSerialization.jsonObject(with: Data(document)) as? [String: Any]
            guard let keys = object?["keys"] as? [Any] else { throw Failure(description: "not a JWK Set") }
            return keys
        }
        return [UInt8](try JSONSerialization.data(withJSONObject: ["keys": try keys(first) + keys(second)]))
    }
}
