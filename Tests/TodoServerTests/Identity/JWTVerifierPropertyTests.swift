import Foundation
import TestSupport
import Testing

@testable import TodoServer

/// Properties of the verifier over many inputs: a damaged token is never accepted (base64url is
/// read strictly, so any other spelling of a valid token is refused too), and verifying from many
/// threads at once with one key set gives each the same answer.
@Suite("JWTVerifier: damaged tokens and concurrent verification")
struct JWTVerifierPropertyTests {
    private static func seed(_ name: String) -> UInt64 { testSeed("JWTVerifierPropertyTests.\(name)") }

    @Test("a token with bytes flipped, inserted or removed is refused, whatever the damage (3 algorithms × 1,000)")
    func damagedTokensAreRefused() throws {
        let fixture = try IdentityFixture.get()
        let keys = try JWKSet.parse(fixture.setA).get()
        let now = IdentityFixture.instant()
        var random = SplitMix64(seed: Self.seed("damaged"))
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ".utf8)
        var refusals: [String: Int] = [:]
        for name in ["RS256", "ES256", "EdDSA"] {
            let token = Array(try #require(fixture.tokens[name]).utf8)
            for _ in 0..<1000 {
                var damaged = token
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let at = Int.random(in: 0..<damaged.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: damaged[at] = alphabet.randomElement(using: &random)!
                    case 1: damaged.insert(alphabet.randomElement(using: &random)!, at: at)
                    default: damaged.remove(at: at)
                    }
                }
                guard damaged != token else { continue }
                switch JWTVerifierTests.verifier.verify(damaged, keys: keys, now: now) {
                case .success:
                    Issue.record("accepted a damaged \(name) token: \(String(decoding: damaged, as: UTF8.self))")
                case .failure(let refusal):
                    refusals[refusal.description.split(separator: ":").first.map(String.init) ?? "", default: 0] += 1
                }
            }
        }
        print("JWTVerifierPropertyTests.damaged: refusals \(refusals.sorted { $0.key < $1.key })")
        #expect(refusals["bad signature", default: 0] > 100)
        #expect(refusals["malformed", default: 0] > 100)
    }

    @Test("many tasks verify with one key set at once: every answer is the right one")
    func concurrentVerification() async throws {
        let fixture = try IdentityFixture.get()
        let keys = try JWKSet.parse(fixture.setA).get()
        let tokens = try ["RS256", "ES256", "EdDSA", "another RSA key's signature"].map { try #require(fixture.tokens[$0]) }
        let expected: [JWTVerifierTests.Outcome] = [
            JWTVerifierTests.valid, JWTVerifierTests.valid, JWTVerifierTests.valid, .refused("bad signature"),
        ]
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var mismatches = 0
                    for round in 0..<40 {
                        let index = (task + round) % tokens.count
                        let outcome = JWTVerifierTests.outcome(
                            JWTVerifierTests.verifier.verify(tokens[index], keys: keys, now: IdentityFixture.instant()))
                        if outcome != expected[index] { mismatches += 1 }
                    }
                    return mismatches
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }
}
