import Foundation
import Testing

@testable import TodoData
@testable import TodoServer

/// `ownerTokens` / `TODO_OWNER_TOKENS` / `ownerTokensFile`: as strict as the other token settings,
/// and no error ever shows a token.
@Suite("ServerConfiguration: owner tokens")
struct OwnerTokensConfigurationTests: ConfigurationFixtures {
    @Test("owner:token pairs from the environment, a flag, the file and a secret file; the owner ends at the first colon")
    func pairs() throws {
        let environment = try ServerConfiguration.load(
            flags: [:], environment: ["TODO_OWNER_TOKENS": "alice@example.com:tok-a"], filePath: nil)
        // "tok:b=" has a character a bearer token cannot have: refused below; here the good pair.
        #expect(environment.ownerTokens == [OwnerToken(owner: Owner(name: "alice@example.com")!, token: "tok-a")])
        #expect(environment.requiresTokens && environment.hasOwners)

        let file = try writeFile("# owners\nalice:one\n\n bob:two \n")
        let both = try ServerConfiguration.load(
            flags: ["ownerTokens": "carol:three", "ownerTokensFile": file], environment: [:], filePath: nil)
        #expect(both.ownerTokens.map(\.owner.name) == ["carol", "alice", "bob"])
        #expect(both.ownerTokens.map(\.token) == ["three", "one", "two"])
        let json = try writeFile(#"{"ownerTokens": ["dave:four", "erin:five"]}"#)
        #expect(
            try ServerConfiguration.load(flags: [:], environment: [:], filePath: json).ownerTokens.map(\.owner.name) == ["dave", "erin"])
    }

    @Test(
        "a pair that is not owner:token is refused by its place, never its text",
        arguments: [
            "alice", ":secret-token", "al ice:secret-token", "alice:", "alice:sec ret", "alice:secret-token,,bob:x",
            String(repeating: "a", count: 129) + ":secret-token", "älice:secret-token", "alice/x:secret-token", "bob:secret:token",
        ])
    func badPair(value: String) throws {
        let error = try #require(loadError(environment: ["TODO_OWNER_TOKENS": value]))
        #expect(error.key == "ownerTokens")
        #expect(!error.description.contains("secret"))
        #expect(error.description.contains("owner:token pairs"))
        #expect(error.description.hasSuffix("(set by TODO_OWNER_TOKENS)"))
    }

    @Test("blank is refused, as for every token setting")
    func blank() throws {
        for (variable, key) in [("TODO_OWNER_TOKENS", "ownerTokens"), ("TODO_OWNER_TOKENS_FILE", "ownerTokensFile")] {
            let error = try #require(loadError(environment: [variable: " "]))
            #expect(error.key == key)
            #expect(error.description.contains("is set but empty or white space"))
        }
        let empty = try writeFile("# nobody\n")
        #expect(loadError(flags: ["ownerTokensFile": empty])?.description.contains("(the file holds no pair)") == true)
    }

    @Test("one token for two owners, or an owner's token that is also a plain token, is refused naming the owners, not the token")
    func ambiguous() throws {
        let twice = try #require(loadError(environment: ["TODO_OWNER_TOKENS": "alice:s3cr3t-shared,bob:s3cr3t-shared"]))
        #expect(twice.key == "ownerTokens")
        #expect(twice.description.contains("gives one token to two owners (alice and bob)"))
        #expect(!twice.description.contains("s3cr3t"))
        let file = try writeFile("bob:s3cr3t-shared\n")
        let acrossSources = try #require(
            loadError(flags: ["ownerTokensFile": file], environment: ["TODO_OWNER_TOKENS": "alice:s3cr3t-shared"]))
        #expect(acrossSources.description.contains("two owners (alice and bob)"))
        // The same owner may have two tokens; one token listed twice for one owner is harmless.
        #expect(loadError(environment: ["TODO_OWNER_TOKENS": "alice:one,alice:two,alice:one"]) == nil)
        let plain = try #require(loadError(environment: ["TODO_OWNER_TOKENS": "alice:s3cr3t", "TODO_READ_TOKENS": "s3cr3t"]))
        #expect(plain.description.contains("gives alice a token that authTokens or readTokens also lists"))
        #expect(!plain.description.contains("s3cr3t'"))
    }

    @Test("owners are taken with every store: memory, a journal, a database")
    func storesKeepOwners() throws {
        let journaled = try ServerConfiguration.load(
            flags: [:], environment: ["TODO_OWNER_TOKENS": "alice:one", "TODO_DATA_DIR": "/tmp/x"], filePath: nil)
        #expect(journaled.dataDirectory == "/tmp/x")
        #expect(journaled.ownerTokens.map(\.owner.name) == ["alice"])
        let database = try ServerConfiguration.load(
            flags: [:], environment: ["TODO_OWNER_TOKENS": "alice:one", "TODO_DATABASE_URL": "host=/tmp dbname=todo"], filePath: nil)
        #expect(database.hasOwners && database.databaseURL != nil)
    }

    @Test(
        "jwtOwnerClaim is a claim name: a line break or a quote is refused at start-up", arguments: ["sub\r\nX: y", "a\"b", "", "e mail"])
    func ownerClaim(value: String) throws {
        let error = try #require(loadError(environment: ["TODO_JWT_OWNER_CLAIM": value]))
        #expect(error.key == "jwtOwnerClaim")
        #expect(
            try ServerConfiguration.load(flags: [:], environment: ["TODO_JWT_OWNER_CLAIM": "oid"], filePath: nil).jwtOwnerClaim == "oid")
    }

    @Test("the dump counts owner tokens and never shows one")
    func dump() throws {
        let configuration = try ServerConfiguration.load(flags: [:], environment: ["TODO_OWNER_TOKENS": "alice:hidden-1"], filePath: nil)
        let setting = try #require(ServerConfiguration.settings.first { $0.key == "ownerTokens" })
        #expect(setting.secret)
        #expect(setting.render(configuration) == "1 owner tokens")
    }

    @Test("jwtJwksUrl with its issuer and audience: the key source, its CA file and pacing, from the environment")
    func keySetURL() throws {
        let ca = try writeFile("-----BEGIN CERTIFICATE-----\n")
        let configuration = try ServerConfiguration.load(
            flags: [:],
            environment: [
                "TODO_JWT_JWKS_URL": "https://id.example.com/realms/todo/protocol/openid-connect/certs", "TODO_JWT_JWKS_CA_FILE": ca,
                "TODO_JWT_JWKS_MIN_REFRESH_SECONDS": "5", "TODO_JWT_JWKS_TIMEOUT_SECONDS": "3", "TODO_JWT_ISSUER": "https://id.example.com",
                "TODO_JWT_AUDIENCE": "todo-api",
            ], filePath: nil)
        #expect(configuration.hasOwners && configuration.acceptsJWTs)
        #expect(
            configuration.jwtKeySetURL
                == JWKSURLSource.Settings(
                    url: "https://id.example.com/realms/todo/protocol/openid-connect/certs", caFile: ca, minRefreshSeconds: 5,
                    timeoutSeconds: 3))
        #expect(configuration.jwtVerification?.issuer == "https://id.example.com")
        let defaults = try ServerConfiguration.load(
            flags: ["jwtJwksUrl": "http://127.0.0.1:8180/jwks", "jwtIssuer": "i", "jwtAudience": "a"], environment: [:], filePath: nil)
        #expect(
            defaults.jwtKeySetURL
                == JWKSURLSource.Settings(url: "http://127.0.0.1:8180/jwks", caFile: nil, minRefreshSeconds: 30, timeoutSeconds: 10))
    }

    @Test(
        "jwtJwksUrl refusals at start-up: not https (http off loopback), a password in it, both sources, no issuer, a CA file alone or unreadable, pacing out of range",
        arguments: [
            (["TODO_JWT_JWKS_URL": "http://id.example.com/jwks"], "jwtJwksUrl", "an https:// URL"),
            (["TODO_JWT_JWKS_URL": "https://me:pw@id.example.com/jwks"], "jwtJwksUrl", "an https:// URL"),
            (["TODO_JWT_JWKS_URL": "https://id.example.com/jwks", "TODO_JWT_JWKS_FILE": "/dev/null"], "jwtJwksUrl", "are both set"),
            (
                ["TODO_JWT_JWKS_URL": "https://id.example.com/jwks", "TODO_JWT_AUDIENCE": "a"], "jwtIssuer",
                "'jwtJwksUrl' needs 'jwtIssuer' too"
            ),
            (["TODO_JWT_JWKS_CA_FILE": "/etc/hostname"], "jwtJwksCaFile", "set without 'jwtJwksUrl'"),
            (
                ["TODO_JWT_JWKS_URL": "https://id.example.com/jwks", "TODO_JWT_JWKS_CA_FILE": "/nonexistent/ca.pem"], "jwtJwksCaFile",
                "must be a readable PEM file"
            ),
            (["TODO_JWT_JWKS_MIN_REFRESH_SECONDS": "0"], "jwtJwksMinRefreshSeconds", "from 1 to 86400"),
            (["TODO_JWT_JWKS_TIMEOUT_SECONDS": "301"], "jwtJwksTimeoutSeconds", "from 1 to 300"),
            (["TODO_JWT_ISSUER": "i"], "jwtIssuer", "without 'jwtJwksFile' or 'jwtJwksUrl'"),
        ])
    func keySetURLRefusals(environment: [String: String], key: String, words: String) throws {
        var environment = environment
        if key != "jwtIssuer", environment["TODO_JWT_JWKS_URL"] != nil {
            environment["TODO_JWT_ISSUER"] = "i"
            environment["TODO_JWT_AUDIENCE"] = "a"
        }
        let error = try #require(loadError(environment: environment))
        #expect(error.key == key)
        #expect(error.description.contains(words), "\(error.description)")
        #expect(!error.description.contains("pw@"))
        #expect(!error.description.contains("me:"))
    }

    @Test(
        "an error shows a URL's user info as …, whatever the setting",
        arguments: [
            ("'https://me:pw@id.example.com/jwks'", "'https://…@id.example.com/jwks'"),
            ("'postgresql://todo:s3cret@db:5432/todo'", "'postgresql://…@db:5432/todo'"),
            ("\"https://a@b@host/x?q=a@b\"", "\"https://…@host/x?q=a@b\""), ("'https://host/path@x'", "'https://host/path@x'"),
            ("'no url here'", "'no url here'"), ("'alice@example.com'", "'alice@example.com'"),
        ])
    func redactsUserInfo(text: String, shown: String) {
        #expect(GivenValue.redactingUserInfo(text) == shown)
    }
}
