import Foundation
import Testing

@testable import TodoData
@testable import TodoServer

/// A JWK Set file read again when it changes: rotation without a restart, and a broken or missing
/// file that keeps the last good set. The clock is the injected `now`; nothing sleeps.
@Suite("JWKSFile: a JWK Set file read again when it changes")
struct JWKSFileTests {
    /// A folder of its own, removed at the end.
    private final class Folder {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("todo-jwks-\(UUID().uuidString)").path
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }

        /// The path of the set's file here, jwks.json.
        var jwks: String { path + "/jwks.json" }

        /// Writes `set` to jwks.json and loads it, at second 0.
        func loadJWKS(_ set: [UInt8]) throws -> JWKSFile {
            try write(set, to: "jwks.json")
            return try JWKSFile.load(path: jwks, now: JWKSFileTests.at(0)).get()
        }

        /// Writes `bytes` to `name` in place (truncate and write, as an editor without rename does).
        func write(_ bytes: [UInt8], to name: String) throws {
            try Data(bytes).write(to: URL(fileURLWithPath: path + "/" + name))
        }

        /// Writes `bytes` beside `name` and renames it over `name` (as configuration tools and
        /// Kubernetes' projected volumes do).
        func replace(_ name: String, with bytes: [UInt8]) throws {
            try write(bytes, to: name + ".new")
            guard rename(path + "/" + name + ".new", path + "/" + name) == 0 else { throw CocoaError(.fileWriteUnknown) }
        }
    }

    private static func at(_ seconds: Int64) -> Timestamp { IdentityFixture.instant(plusMilliseconds: seconds * 1000) }

    private static func outcome(_ token: String, _ keys: JWKSet) -> JWTVerifierTests.Outcome {
        JWTVerifierTests.outcome(JWTVerifierTests.verifier.verify(token, keys: keys, now: IdentityFixture.instant()))
    }

    private static func reason(_ refresh: JWKSFile.Refresh) -> String? {
        if case .kept(let reason) = refresh { return reason }
        return nil
    }

    private static func reloaded(_ refresh: JWKSFile.Refresh) -> [String?]? {
        if case .reloaded(let keys) = refresh { return keys.keys.map(\.keyID) }
        return nil
    }

    private static func isUnchanged(_ refresh: JWKSFile.Refresh) -> Bool {
        if case .unchanged = refresh { return true }
        return false
    }

    @Test("a rotated set takes effect at the next look: the new kid accepted, the old one unknown")
    func rotation() throws {
        let fixture = try IdentityFixture.get()
        let folder = try Folder()
        var file = try folder.loadJWKS(fixture.setA)
        let old = try #require(fixture.tokens["RS256"]), new = try #require(fixture.tokens["rotated"])
        #expect(Self.outcome(old, file.keys) == JWTVerifierTests.valid)
        #expect(Self.outcome(new, file.keys) == .refused("unknown key"))
        #expect(Self.isUnchanged(file.refresh(now: Self.at(1))))

        try folder.replace("jwks.json", with: fixture.setB)
        // Looked at no more than once per second: 999 ms after the last look, nothing yet.
        #expect(Self.isUnchanged(file.refresh(now: Self.at(1) + 999)))
        #expect(Self.outcome(old, file.keys) == JWTVerifierTests.valid)
        #expect(Self.reloaded(file.refresh(now: Self.at(2))) == ["b-rsa", "b-ec", "b-ed25519"])
        #expect(Self.outcome(new, file.keys) == JWTVerifierTests.valid)
        #expect(Self.outcome(old, file.keys) == .refused("unknown key"))
        #expect(Self.isUnchanged(file.refresh(now: Self.at(3))))

        // Back to set A, written in place this time.
        try folder.write(fixture.setA, to: "jwks.json")
        #expect(Self.reloaded(file.refresh(now: Self.at(4))) == ["a-rsa", "a-ec", "a-ed25519"])
        #expect(Self.outcome(old, file.keys) == JWTVerifierTests.valid)
    }

    @Test("a broken or missing file keeps the last good set, reported once per change")
    func brokenFileKeepsLastGoodSet() throws {
        let fixture = try IdentityFixture.get()
        let folder = try Folder()
        var file = try folder.loadJWKS(fixture.setB)
        let token = try #require(fixture.tokens["rotated"])

        try folder.replace("jwks.json", with: Array(#"{"keys":[{"kty":"RSA","n":"#.utf8))
        #expect(Self.reason(file.refresh(now: Self.at(1))) == "not JSON: unexpected end of input, expected a value at byte 26")
        #expect(Self.outcome(token, file.keys) == JWTVerifierTests.valid)
        #expect(Self.isUnchanged(file.refresh(now: Self.at(2))))

        try folder.replace("jwks.json", with: Array(#"{"keys":[]}"#.utf8))
        #expect(Self.reason(file.refresh(now: Self.at(3))) == #"no usable key: "keys" is empty"#)
        #expect(Self.outcome(token, file.keys) == JWTVerifierTests.valid)

        try FileManager.default.removeItem(atPath: folder.jwks)
        #expect(Self.reason(file.refresh(now: Self.at(4))) == "cannot be read: No such file or directory")
        #expect(Self.isUnchanged(file.refresh(now: Self.at(5))))
        #expect(Self.outcome(token, file.keys) == JWTVerifierTests.valid)

        try FileManager.default.createDirectory(atPath: folder.jwks, withIntermediateDirectories: false)
        #expect(Self.reason(file.refresh(now: Self.at(6))) == "is not a regular file")
        try FileManager.default.removeItem(atPath: folder.jwks)

        try folder.write(fixture.setA, to: "jwks.json")
        #expect(Self.reloaded(file.refresh(now: Self.at(7))) == ["a-rsa", "a-ec", "a-ed25519"])
        #expect(Self.outcome(token, file.keys) == .refused("unknown key"))
    }

    @Test("at start a file that is not a usable set is refused with why")
    func loadRefuses() throws {
        let folder = try Folder()
        func failure(_ path: String) -> String? {
            if case .failure(let failure) = JWKSFile.load(path: path, now: Self.at(0)) { return failure.description }
            return nil
        }
        #expect(failure(folder.path + "/missing.json") == "cannot be read: No such file or directory")
        #expect(failure(folder.path) == "is not a regular file")
        try folder.write(Array("[]".utf8), to: "array.json")
        #expect(failure(folder.path + "/array.json") == "not a JWK Set: an array, not an object")
        try folder.write([UInt8](repeating: 0x20, count: 300_000), to: "large.json")
        #expect(failure(folder.path + "/large.json") == "larger than 262144 bytes")
    }
}

extension Timestamp {
    fileprivate static func + (lhs: Timestamp, milliseconds: Int64) -> Timestamp {
        Timestamp(millisecondsSinceEpoch: lhs.millisecondsSinceEpoch + milliseconds)
    }
}
