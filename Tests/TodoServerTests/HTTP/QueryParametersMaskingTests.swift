import TestSupport
import Testing

@testable import TodoServer

@Suite("QueryParameters.maskingSecrets: the log's masking reads names as the router does", .tags(.singleThreaded))
struct QueryParametersMaskingTests {
    @Test(
        "every spelling the router decodes to access_token, and every case of it, has its value masked; the rest stays as sent",
        arguments: [
            ("access_token=abc", "access_token=(redacted)"),
            ("%61ccess_token=abc&limit=1", "%61ccess_token=(redacted)&limit=1"),
            ("access%5Ftoken=abc", "access%5Ftoken=(redacted)"),
            ("access%5ftoken=a%2Bb", "access%5ftoken=(redacted)"),
            ("%61%63%63%65%73%73%5f%74%6f%6b%65%6e=abc", "%61%63%63%65%73%73%5f%74%6f%6b%65%6e=(redacted)"),
            ("ACCESS_TOKEN=abc", "ACCESS_TOKEN=(redacted)"),
            ("Access_Token=a+b", "Access_Token=(redacted)"),
            ("%41CCESS%5FTOKEN=abc", "%41CCESS%5FTOKEN=(redacted)"),
            // Unicode case folding: the Kelvin sign, long s and sharp s fold to k, s and ss.
            ("access_to%E2%84%AAen=abc", "access_to%E2%84%AAen=(redacted)"),
            ("acce%C5%BF%C5%BF_token=abc", "acce%C5%BF%C5%BF_token=(redacted)"),
            ("acceß_token=abc", "acceß_token=(redacted)"),
            // Repeats, empty items, a value with `=`, an empty value.
            ("access_token=a&access_token=b", "access_token=(redacted)&access_token=(redacted)"),
            ("ACCESS_TOKEN=a&x=1&access_token=b", "ACCESS_TOKEN=(redacted)&x=1&access_token=(redacted)"),
            ("a=1&&access_token=x=y&b", "a=1&&access_token=(redacted)&b"),
            ("access_token=&b=2", "access_token=(redacted)&b=2"),
            // Not the parameter, to the router either: left as sent.
            ("limit=2&sort=title", "limit=2&sort=title"),
            ("access_token", "access_token"),
            ("access+token=abc", "access+token=abc"),
            ("access_tokens=abc&xaccess_token=abc", "access_tokens=abc&xaccess_token=abc"),
            ("q=access_token%3Dabc&access_token%3Dabc", "q=access_token%3Dabc&access_token%3Dabc"),
            ("%zzaccess_token=abc", "%zzaccess_token=abc"),
            ("", ""),
        ])
    func masks(query: String, masked: String) {
        #expect(QueryParameters.maskingSecrets(in: query) == masked)
    }

    @Test("a secret name: access_token in any case after decoding, nothing else")
    func secretNames() {
        for name in ["access_token", "ACCESS_TOKEN", "aCcEsS_tOkEn", "access_to\u{212A}en", "acce\u{17F}\u{17F}_token", "acceß_token"] {
            #expect(QueryParameters.isSecret(name: name), "\(name)")
        }
        for name in ["", "access token", "access_tokens", " access_token", "access-token", "accesstoken", "token", "access_token\0"] {
            #expect(!QueryParameters.isSecret(name: name), "\(name)")
        }
    }

    /// Names a random query draws from: spellings of the secret one, near misses, others.
    static let names = [
        "access_token", "%61ccess_token", "access%5Ftoken", "access%5ftoken", "ACCESS_TOKEN", "Access%5FToken", "access_to%E2%84%AAen",
        "access+token", "access_tokens", "access", "token", "limit", "q", "%71", "sort", "", "a%zz", "%C3%A9", "access_t%6Fken",
    ]
    /// Pieces of values: escapes, `+`, `=`, malformed escapes, bytes past ASCII.
    static let valuePieces = ["abc", "%2B", "+", "=", "%20", "%zz", "%", "é", "%C3%A9", "T0k~", "/", "?", "%26", "access_token"]

    @Test("random queries: the masked query reads, as the router reads it, as the query with each secret value masked")
    func randomQueries() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        for _ in 0..<20_000 {
            // Each item as sent, and the pairs the router must read in the logged query.
            var items: [String] = [], expected: [String] = []
            for _ in 0..<Int.random(in: 0...5, using: &random) {
                let name = Self.names.randomElement(using: &random)!
                let value = (0..<Int.random(in: 0...3, using: &random)).map { _ in Self.valuePieces.randomElement(using: &random)! }
                    .joined()
                let decoded = QueryParameters.decode(name[...])
                switch Int.random(in: 0...5, using: &random) {
                case 0:
                    items.append(name)
                    if !name.isEmpty { expected.append("\(decoded)=") }
                case 1: items.append("")
                default:
                    items.append(name + "=" + value)
                    expected.append(
                        "\(decoded)=\(QueryParameters.isSecret(name: decoded) ? "(redacted)" : QueryParameters.decode(value[...]))")
                }
            }
            let query = items.joined(separator: "&")
            let masked = QueryParameters.maskingSecrets(in: query)
            #expect(QueryParameters(masked).pairs.map { "\($0.name)=\($0.value)" } == expected, "seed \(seed): \(query)")
            if !QueryParameters(query).pairs.contains(where: { QueryParameters.isSecret(name: $0.name) }) {
                #expect(masked == query, "seed \(seed): \(query)")
            }
            #expect(QueryParameters.maskingSecrets(in: masked) == masked, "seed \(seed): \(query)")
        }
    }
}
