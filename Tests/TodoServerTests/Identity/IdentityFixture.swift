import Foundation
import Testing

@testable import TodoData
@testable import TodoServer

/// Keys and tokens made by an implementation independent of the server's: Python's `cryptography`
/// through `scripts/dev-tokens.py` (two key sets, `a-…` and `b-…`, each an RSA 2048, a P-256 and an
/// Ed25519 key; then every token the suites name, in one run of `sign`). Made once per test
/// process, on first use; the private keys are deleted as soon as the tokens are signed.
struct IdentityFixture: Sendable {
    /// The fixed instant the tokens' times are relative to, in seconds since the epoch.
    static let now: Int64 = 1_800_000_000
    static let issuer = "https://id.example.test/realms/todo"
    static let audience = "todo-api"

    /// The JWK Set documents of the two key sets.
    let setA: [UInt8]
    let setB: [UInt8]
    /// The tokens by name (`IdentityFixture.specs`).
    let tokens: [String: String]

    /// Why the fixture could not be made (no `python3` with `cryptography`, most likely).
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The fixture, or why it is missing (each test then fails with that reason).
    static let shared: Result<IdentityFixture, Failure> = make()

    static func get() throws -> IdentityFixture {
        try shared.get()
    }

    /// The instant `now` as the verifier takes it, `offset` milliseconds later.
    static func instant(plusMilliseconds offset: Int64 = 0) -> Timestamp {
        Timestamp(millisecondsSinceEpoch: now * 1000 + offset)
    }

    /// A token to sign: its header and payload texts as they go on the wire (so they may be
    /// anything), the key set (`a` or `b`) and the key (`rsa`, `ec`, `ed25519`,
    /// `hmac-rsa-public-pem`, `none`) that signs it.
    struct Spec: Sendable {
        var name: String
        var header: String
        var payload: String
        var set = "a"
        var key: String
        var ecdsa = "raw"
    }

    /// `{"alg":…,"kid":…<extra>}`, without `kid` when nil.
    static func header(_ algorithm: String, kid: String?, extra: String = "") -> String {
        #"{"alg":"\#(algorithm)""# + (kid.map { #","kid":"\#($0)""# } ?? "") + extra + "}"
    }

    /// Claims valid at `now` for alice, each replaceable (nil leaves it out) and `extra` appended.
    static func claims(
        iss: String? = #""\#(issuer)""#, aud: String? = #""\#(audience)""#, exp: String? = "\(now + 3600)", sub: String? = #""alice""#,
        extra: String = ""
    ) -> String {
        let members = [("iss", iss), ("aud", aud), ("exp", exp), ("sub", sub)].compactMap { name, value in
            value.map { #""\#(name)":\#($0)"# }
        }
        return "{" + members.joined(separator: ",") + extra + "}"
    }

    private static func make() -> Result<IdentityFixture, Failure> {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("todo-identity-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let interpreter = try interpreter()
            func python(_ arguments: [String], input: Data = Data()) throws -> Data {
                try run(interpreter, [script] + arguments, input: input)
            }
            _ = try python(["keys", directory + "/a", "--kid-prefix", "a-"])
            _ = try python(["keys", directory + "/b", "--kid-prefix", "b-"])
            let setA = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/a/jwks.json")))
            let setB = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/b/jwks.json")))
            let all = JWTVerifierTests.specs + JWTEndToEndTests.specs
            let request: [String: Any] = [
                "tokens": all.map { spec in
                    [
                        "header": spec.header, "payload": spec.payload, "dir": directory + "/" + spec.set, "key": spec.key,
                        "ecdsa": spec.ecdsa,
                    ]
                }
            ]
            let signed = try python(["sign"], input: JSONSerialization.data(withJSONObject: request))
            guard let list = try JSONSerialization.jsonObject(with: signed) as? [String], list.count == all.count else {
                return .failure(Failure(description: "dev-tokens.py sign printed no list of \(all.count) tokens"))
            }
            var tokens: [String: String] = [:]
            for (spec, token) in zip(all, list) {
                precondition(tokens.updateValue(token, forKey: spec.name) == nil, "two specs named \(spec.name)")
            }
            return .success(IdentityFixture(setA: setA, setB: setB, tokens: tokens))
        } catch let failure as Failure {
            return .failure(failure)
        } catch {
            return .failure(Failure(description: "\(error)"))
        }
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../scripts/dev-tokens.py").standardized.path

    /// The first of PATH's `python3` and `/usr/bin/python3` that has `cryptography`
    /// (scripts/install-deps.sh installs Debian's package when neither has it).
    static func interpreter() throws -> [String] {
        let candidates = [["/usr/bin/env", "python3"], ["/usr/bin/python3"]]
        for candidate in candidates where (try? run(candidate, ["-c", "import cryptography"])) != nil {
            return candidate
        }
        throw Failure(
            description: "no python3 with the cryptography package (PATH's python3, /usr/bin/python3); scripts/install-deps.sh installs it")
    }

    /// Runs `command` with `arguments`, `input` on its standard input; its standard output, or a
    /// failure with its standard error.
    private static func run(_ command: [String], _ arguments: [String], input: Data = Data()) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst()) + arguments
        let standardInput = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = standardInput
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Written whole, then closed: the script reads all of its input before it writes.
        standardInput.fileHandleForWriting.write(input)
        try standardInput.fileHandleForWriting.close()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complaints = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                description: "\((command + arguments.prefix(2)).joined(separator: " ")) exited \(process.terminationStatus): "
                    + String(decoding: complaints, as: UTF8.self))
        }
        return printed
    }
}
