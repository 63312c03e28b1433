import Foundation
import Glibc
import Logging
import TestSupport
import Testing

@testable import TodoData
@testable import TodoServer

/// Issue 35, defect 4: the live feed takes its token from `access_token=` (RFC 6750 §2.3), and the
/// log's redaction matched the literal name while the router decodes it, so `%61ccess_token=` and
/// `access%5Ftoken=` were accepted and logged in clear, and `ACCESS_TOKEN=` refused and logged in
/// clear. Here a server with a read-write and a read token, logging at trace level, is sent each
/// token under every spelling of the name and the value, repeated, on every kind of route and
/// method, and in `Authorization`; no log line may hold a token in any form it was sent in, and
/// each request's access line shows its query with every secret value masked.
@Suite("End to end: a token reaches no log line, however it is spelled", .tags(.endToEnd))
struct SecretsStayOutOfLogsTests {
    static let writeToken = "rwT0ken-Alpha.9~x"
    static let readToken = "roT0ken+Beta/7=="
    /// A token no server knows: a mistyped one is a secret too.
    static let wrongToken = "wrT0ken-Gamma"

    /// One way to write the parameter's name or value in a query, and whether the router reads it
    /// as `access_token` (for a name) or as the token itself (for a value).
    struct Spelling: CustomStringConvertible {
        let text: String
        let accepted: Bool
        var description: String { text }
    }

    /// Every byte of `text` as `%XX`.
    static func encodedBytes(_ text: String, lowercase: Bool = false) -> String {
        text.utf8.map { String(format: lowercase ? "%%%02x" : "%%%02X", $0) }.joined()
    }

    /// The name: as the router takes it (exact, `%XX` anywhere, `%5F`/`%5f`), and as it does not
    /// (other cases, also encoded and in Unicode: `ſ`, `ß`, the Kelvin sign; all fold to `access_token`).
    static let names: [Spelling] = {
        let name = "access_token"
        var names = [Spelling(text: name, accepted: true)]
        for (offset, character) in name.enumerated() {
            let prefix = String(name.prefix(offset)), suffix = String(name.dropFirst(offset + 1))
            let upper = encodedBytes(String(character)), lower = encodedBytes(String(character), lowercase: true)
            names.append(Spelling(text: prefix + upper + suffix, accepted: true))
            if lower != upper { names.append(Spelling(text: prefix + lower + suffix, accepted: true)) }
        }
        names += [
            Spelling(text: encodedBytes(name), accepted: true),
            Spelling(text: encodedBytes(name, lowercase: true), accepted: true),
            Spelling(text: "ACCESS_TOKEN", accepted: false),
            Spelling(text: "Access_Token", accepted: false),
            Spelling(text: "aCCESS_tOKEn", accepted: false),
            Spelling(text: "%41CCESS%5FTOKEN", accepted: false),
            Spelling(text: "%41ccess_token", accepted: false),
            Spelling(text: "acce%C5%BF%C5%BF_token", accepted: false),
            Spelling(text: "acce%C3%9F_token", accepted: false),
            Spelling(text: "access_to%E2%84%AAen", accepted: false),
        ]
        return names
    }()

    /// The value: percent-encoded as a client library does, every byte encoded (upper- and
    /// lower-case hex), spaces around it as `+` and `%20` (the bearer token is trimmed), and as it
    /// is (a `+` in it then decodes to a space: not the token).
    static func values(of token: String) -> [Spelling] {
        let encoded = PercentEncoding.encode(token)
        var values = [
            Spelling(text: token, accepted: !token.contains("+")),
            Spelling(text: encoded, accepted: true),
            Spelling(text: encodedBytes(token), accepted: true),
            Spelling(text: encodedBytes(token, lowercase: true), accepted: true),
            Spelling(text: "+" + encoded, accepted: true),
            Spelling(text: "%20" + encoded, accepted: true),
            Spelling(text: encoded + "+", accepted: true),
            Spelling(text: encoded + "%20", accepted: true),
            Spelling(text: encodedBytes(String(token.prefix(1))) + PercentEncoding.encode(String(token.dropFirst())), accepted: true),
        ]
        if lowercaseHex(encoded) != encoded { values.append(Spelling(text: lowercaseHex(encoded), accepted: true)) }
        return values
    }

    /// `text` with the two digits after each `%` in lower case.
    static func lowercaseHex(_ text: String) -> String {
        var result = "", digits = 0
        for character in text {
            result += digits > 0 ? character.lowercased() : String(character)
            digits = character == "%" ? 2 : max(0, digits - 1)
        }
        return result
    }

    /// Every form of a token that must not be in the log: the token, each value sent for it, and
    /// what the router would decode a raw `+` to.
    static func forbidden(_ token: String) -> [String] {
        [token, token.replacingOccurrences(of: "+", with: " "), PercentEncoding.encode(token), "T0ken"]
            + values(of: token).map(\.text)
    }

    /// One request: what is sent and what it must get.
    struct Probe {
        let method: String
        let target: String
        var headers: [(String, String)] = []
        let status: Int
        /// The query as its access line must show it (nil: the target's own path and query).
        var loggedTarget: String?
    }

    /// Where the server's lines go: its own handler (the access line's direct path, text or
    /// JSON), or swift-log's general path with structured metadata.
    enum Sink: String, CaseIterable, CustomTestStringConvertible {
        case text, json, swiftLog
        var testDescription: String { rawValue }
    }

    static let unknownID = "00000000-0000-4000-8000-000000000000"

    /// The status of `method` on `path` when the query names a token the router takes as `token`
    /// (nil: none), with no `Authorization`.
    static func status(_ method: String, _ path: String, token: String?) -> Int {
        switch (path, method) {
        case ("/nope", "OPTIONS"): return 404
        case (_, "OPTIONS"): return 204
        case ("/healthz", "GET"), ("/healthz", "HEAD"): return 200
        case ("/todos/events", "GET"), ("/todos/events", "HEAD"): return token == nil ? 401 : 200
        case ("/todos/events", _): return token == nil ? 401 : token == readToken ? 403 : 405
        default: return 401
        }
    }

    /// Every probe: each token under every name and value spelling on the feed; a few spellings
    /// and repeats on every route and method; the token in `Authorization` and other headers.
    static func probes() -> [Probe] {
        var probes: [Probe] = []
        for token in [writeToken, readToken] {
            for name in names {
                for value in values(of: token) {
                    probes.append(
                        Probe(
                            method: "GET", target: "/todos/events?\(name.text)=\(value.text)",
                            status: name.accepted && value.accepted ? 200 : 401,
                            loggedTarget: "/todos/events?\(name.text)=(redacted)"))
                }
            }
            let encoded = PercentEncoding.encode(token)
            let wrong = PercentEncoding.encode(wrongToken)
            // (query, the token the router takes, the query as logged)
            let queries: [(String, String?, String)] = [
                ("access_token=\(encoded)", token, "access_token=(redacted)"),
                ("ACCESS_TOKEN=\(encoded)", nil, "ACCESS_TOKEN=(redacted)"),
                ("%61ccess_token=\(encoded)&limit=1", token, "%61ccess_token=(redacted)&limit=1"),
                ("lastEventId=&access%5ftoken=\(encodedBytes(token))", token, "lastEventId=&access%5ftoken=(redacted)"),
                ("access_token=\(encoded)&access_token=\(wrong)", token, "access_token=(redacted)&access_token=(redacted)"),
                ("access_token=\(wrong)&access_token=\(encoded)", nil, "access_token=(redacted)&access_token=(redacted)"),
                ("Access_Token=\(encoded)&&access_token=\(wrong)&x", nil, "Access_Token=(redacted)&&access_token=(redacted)&x"),
                (
                    "access_token=\(PercentEncoding.encode(writeToken))&ACCESS_TOKEN=\(PercentEncoding.encode(readToken))", writeToken,
                    "access_token=(redacted)&ACCESS_TOKEN=(redacted)"
                ),
            ]
            for path in ["/todos/events", "/todos", "/todos/\(unknownID)", "/healthz", "/nope", "/"] {
                for method in ["GET", "HEAD", "POST", "DELETE", "OPTIONS"] {
                    for (query, taken, logged) in queries {
                        let status = path == "/" ? (method == "OPTIONS" ? 204 : 401) : Self.status(method, path, token: taken)
                        probes.append(Probe(method: method, target: "\(path)?\(query)", status: status, loggedTarget: "\(path)?\(logged)"))
                    }
                }
            }
            // A head refused before its body (`Expect: 100-continue`, `RequestPipeline.answer(toHead:)`).
            let waiting = [("Expect", "100-continue"), ("Content-Type", "application/json"), ("Content-Length", "17")]
            probes += [
                Probe(
                    method: "POST", target: "/todos/events?%61ccess_token=\(encoded)", headers: waiting,
                    status: token == writeToken ? 405 : 403, loggedTarget: "/todos/events?%61ccess_token=(redacted)"),
                Probe(
                    method: "POST", target: "/todos?ACCESS_TOKEN=\(encoded)&access_token=\(encoded)", headers: waiting, status: 401,
                    loggedTarget: "/todos?ACCESS_TOKEN=(redacted)&access_token=(redacted)"),
            ]
            // The header: never logged, whatever its spelling or scheme.
            let other = token == writeToken ? 204 : 403
            probes += [
                Probe(method: "GET", target: "/todos", headers: [("Authorization", "Bearer \(token)")], status: 200),
                Probe(method: "GET", target: "/todos", headers: [("authorization", "bearer \(token)")], status: 200),
                Probe(method: "HEAD", target: "/todos/events", headers: [("AUTHORIZATION", "Bearer \(token)")], status: 200),
                Probe(method: "DELETE", target: "/todos", headers: [("Authorization", "Bearer \(token)")], status: other),
                Probe(method: "GET", target: "/nope", headers: [("Authorization", "Bearer \(token)")], status: 404),
                Probe(method: "GET", target: "/todos", headers: [("Authorization", "Basic \(token)")], status: 401),
                Probe(method: "GET", target: "/todos", headers: [("Authorization", "Bearer \(token)x")], status: 401),
                Probe(
                    method: "GET", target: "/todos", headers: [("Authorization", "Bearer \(token)"), ("Authorization", "Bearer \(token)")],
                    status: 400),
                Probe(
                    method: "GET", target: "/todos",
                    headers: [
                        ("Authorization", "Bearer \(token)"), ("Proxy-Authorization", "Bearer \(token)"),
                        ("Cookie", "access_token=\(encoded)"),
                    ], status: 200),
            ]
        }
        return probes
    }

    /// The status a probe got: the head only is read (an accepted feed is a stream that never
    /// ends); the connection closes when the client goes. Not recorded for the OpenAPI check:
    /// these are answers to tokens, on methods and paths the document does not list.
    static func send(_ probe: Probe, id: String, port: Int) throws -> Int {
        let client = try TestHTTPClient(port: port, recordsResponses: false)
        var head = "\(probe.method) \(probe.target) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-ID: \(id)\r\n"
        for (name, value) in probe.headers { head += "\(name): \(value)\r\n" }
        try client.send(head + "\r\n")
        let statusLine = try client.readHead().prefix { $0 != "\r" }
        return Int(statusLine.split(separator: " ")[1]) ?? 0
    }

    /// One line the server logged: all of its text, and for an access line its request id and
    /// message.
    struct Line {
        let text: String
        let requestID: String?
        let message: String
    }

    @Test(arguments: Sink.allCases)
    func noTokenReachesALogLineInAnySpellingRouteMethodOrLevel(_ sink: Sink) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("secrets-\(UUID().uuidString).log").path
        let descriptor = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_APPEND, 0o600)
        try #require(descriptor >= 0)
        defer {
            close(descriptor)
            unlink(path)
        }
        let storage = CapturingLogHandler.Storage()
        let handler: any LogHandler =
            switch sink {
            case .text: StdoutLogHandler(label: "todo-server", logLevel: .trace, descriptor: descriptor, format: .text)
            case .json: StdoutLogHandler(label: "todo-server", logLevel: .trace, descriptor: descriptor, format: .json)
            case .swiftLog: CapturingLogHandler(storage: storage, logLevel: .trace)
            }
        let server = try LiveServer(
            configure: {
                $0.authTokens = [Self.writeToken]
                $0.readTokens = [Self.readToken]
                $0.eventsMaxSubscribers = 10_000
            }, logHandler: handler, logLevel: .trace)
        let probes = Self.probes()
        var statuses: [String] = []
        for (index, probe) in probes.enumerated() {
            let status = try Self.send(probe, id: "p-\(index)", port: server.port)
            if status != probe.status {
                statuses.append("\(probe.method) \(probe.target) \(probe.headers): \(status), not \(probe.status)")
            }
        }
        #expect(statuses == [])
        // Every line is written once the loops have stopped.
        server.application.stop()
        let lines = try Self.lines(of: sink, path: path, storage: storage)
        withExtendedLifetime(server) {}

        var leaks: [String] = []
        for token in [Self.writeToken, Self.readToken, Self.wrongToken] {
            for form in Self.forbidden(token) {
                for line in lines where line.text.contains(form) { leaks.append("\(form) in: \(line.text)") }
            }
        }
        #expect(leaks == [], "\(leaks.count) lines")
        // Each probe has its one access line, with the target as sent but for the masked values.
        let access = Dictionary(grouping: lines.filter { $0.requestID?.hasPrefix("p-") == true }) { $0.requestID! }
        var wrong: [String] = []
        for (index, probe) in probes.enumerated() {
            let found = access["p-\(index)", default: []].filter { $0.message.hasPrefix("\(probe.method) ") }
            let expected = "\(probe.method) \(probe.loggedTarget ?? probe.target) \(probe.status) "
            if found.count != 1 || !found[0].message.hasPrefix(expected) {
                wrong.append("p-\(index): \(found.map(\.message)), not \(expected)")
            }
        }
        #expect(wrong == [], "\(wrong.count) of \(probes.count) probes")
        // The trace level was on: the header lines and the token checks were written (and searched).
        #expect(lines.contains { $0.text.contains("request headers: ") && $0.text.contains("Authorization: (redacted)") })
        #expect(lines.contains { $0.text.contains("token check") })
    }

    /// The lines `sink` received.
    static func lines(of sink: Sink, path: String, storage: CapturingLogHandler.Storage) throws -> [Line] {
        switch sink {
        case .swiftLog:
            return storage.lines.withTracedLock { lines in
                lines.map { line in
                    let metadata = line.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                    return Line(
                        text: "\(line.level) \(metadata) \(line.message)", requestID: line.metadata["request_id"], message: line.message)
                }
            }
        case .text:
            let text = try String(contentsOfFile: path, encoding: .utf8)
            return text.split(separator: "\n").map { line in
                // `<time> <level> <label>: client=… request_id=<id> <message>` for an access line.
                let id = line.firstRange(of: " request_id=").map { line[$0.upperBound...].prefix { $0 != " " } }
                let message = id.map { line[$0.endIndex...].dropFirst() } ?? ""
                return Line(text: String(line), requestID: id.map(String.init), message: String(message))
            }
        case .json:
            let text = try String(contentsOfFile: path, encoding: .utf8)
            return try text.split(separator: "\n").map { line in
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String], "\(line)")
                // Searched as written and as decoded (an escaped `/` would hide a token from the first).
                let values = object.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                return Line(text: "\(line) \(values)", requestID: object["request_id"], message: object["message"] ?? "")
            }
        }
    }
}
