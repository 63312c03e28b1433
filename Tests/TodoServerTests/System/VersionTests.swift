import EventHTTP
import Foundation
import LockTracing
import Logging
import Testing

@testable import TodoServer

/// The version is written once, `SystemInteractor.version`: the index and `--version` read it;
/// the OpenAPI document, the package's README and the banner must say the same.
@Suite("One version")
struct VersionTests {
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..")

    private func text(_ path: String) throws -> String {
        String(decoding: try Data(contentsOf: root.appendingPathComponent(path)), as: UTF8.self)
    }

    @Test("the version is a semantic version")
    func shape() {
        let parts = SystemInteractor.version.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        #expect(parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && Int($0) != nil })
    }

    @Test("the OpenAPI document's info.version is the server's version")
    func openAPI() throws {
        let document = try JSONSerialization.jsonObject(with: Data(try text("Sources/TodoServer/Resources/openapi.json").utf8))
        let info = try #require((document as? [String: Any])?["info"] as? [String: Any])
        #expect(info["version"] as? String == SystemInteractor.version)
    }

    @Test("the README's service index sample shows the server's version")
    func readme() throws {
        let readme = try text("README.md")
        let samples = readme.split(separator: "\n").filter { $0.contains(#""name":"TodoServer""#) }
        try #require(!samples.isEmpty)
        for sample in samples {
            #expect(sample.contains(#""version":"\#(SystemInteractor.version)""#))
        }
    }

    @Test("the banner's first line carries the version")
    func banner() throws {
        let storage = CapturingLogHandler.Storage()
        var logger = Logger(label: "test") { _ in CapturingLogHandler(storage: storage) }
        logger.logLevel = .info
        StartupBanner(configuration: ServerConfiguration(), port: 80).log(to: logger)
        let first = try #require(storage.lines.withTracedLock { $0.first })
        #expect(first.message == "listening on http://127.0.0.1:80/")
        #expect(first.metadata["version"] == SystemInteractor.version)
    }
}

@Suite("Build facts in the index")
struct BuildFactsTests {
    @Test("platform is os-arch, the Swift version one of the known ones, libevent 2.x: the values, not this machine's bytes")
    func shapes() {
        let platform = SystemInteractor.platform.split(separator: "-", maxSplits: 1).map(String.init)
        #expect(["linux", "macos", "other"].contains(platform[0]))
        #expect(platform.count == 1 || ["x86_64", "arm64"].contains(platform[1]))
        #expect(["6.4+", "6.3", "6.2", "6.1 or earlier"].contains(SystemInteractor.swiftVersion))
        #expect(HTTPServer.libeventVersion.hasPrefix("2."))
    }
}
