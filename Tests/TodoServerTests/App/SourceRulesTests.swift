import Foundation
import Testing

@testable import TodoServer

/// Rules of the repository that no compiler checks, held by reading the sources.
@Suite struct SourceRulesTests {
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..")
        .standardizedFileURL

    /// Swift files under a folder of the repository, with their text.
    private func swiftFiles(under folder: String) throws -> [(path: String, text: String)] {
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        var files: [(String, String)] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            files.append((url.path.replacingOccurrences(of: root.path + "/", with: ""), try String(contentsOf: url, encoding: .utf8)))
        }
        return files
    }

    /// `Mutex` on Linux hands a contended lock over in the kernel, where ThreadSanitizer sees no
    /// synchronisation: a plain `withLock` on a `Mutex` makes CI's TSan run report races that are
    /// not there (it did, in `OutageWriters`). Every file that holds a `Mutex` locks it with
    /// `withTracedLock`. (`NSLock`'s `withLock` is a pthread mutex TSan understands.)
    @Test func everyMutexIsLockedThroughTheTracedLock() throws {
        let files = try swiftFiles(under: "Sources") + swiftFiles(under: "Tests")
        #expect(files.count > 100, "the sources were found: \(root.path)")
        let offenders = files.filter { file in
            !["Sources/LockTracing/Mutex+Tracing.swift", "Tests/TodoServerTests/App/SourceRulesTests.swift"].contains(file.path)
                && file.text.contains("Mutex<")
                && file.text.contains(".withLock")
        }
        #expect(offenders.map(\.path) == [])
    }

    /// The tests mirror the sources (docs/testing.md, "Layout"): every folder under `Tests` but the
    /// shared helpers (`TestSupport`, and `<module>TestSupport`: one source target's fixtures that
    /// several test targets use) is the test target of one source target, `<module>Tests`, and is
    /// declared in Package.swift (a folder that is not would have its tests never built).
    @Test func theTestTargetsMirrorTheSourceTargets() throws {
        let folders = { (folder: String) in
            try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path).filter { !$0.hasPrefix(".") }
        }
        let modules = Set(try folders("Sources"))
        let all = try folders("Tests")
        let targets = all.filter { !$0.hasSuffix("TestSupport") }
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(targets.count > 1, "the test folders were found: \(root.path)")
        for support in all where support.hasSuffix("TestSupport") && support != "TestSupport" {
            let module = String(support.dropLast("TestSupport".count))
            #expect(modules.contains(module), "\(support) is named for no source target")
            #expect(manifest.contains(#"name: "\#(support)""#), "\(support) is no target in Package.swift")
        }
        for target in targets {
            #expect(target.hasSuffix("Tests") && modules.contains(String(target.dropLast(5))), "\(target) is named for no source target")
            #expect(manifest.contains(#"name: "\#(target)""#), "\(target) is no target in Package.swift")
        }
    }

    /// The side packages share sources through symbolic links (the fuzzers, the PostgresNIO peer,
    /// the Swift client's document): a link left pointing at a moved file breaks their build in CI
    /// only (it did, when the wire's test helper moved to EventHTTPTests).
    @Test func everySymbolicLinkInTheRepositoryPointsAtAFile() throws {
        let manager = FileManager.default
        var links: [String] = []
        var broken: [String] = []
        for folder in ["Sources", "Tests", "Fuzz", "Benchmarks", "Examples", "scripts"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = manager.enumerator(atPath: base.path) else { continue }
            for case let relative as String in walker where !relative.hasPrefix(".build") && !relative.contains("/.build") {
                let path = base.appendingPathComponent(relative).path
                guard (try? manager.destinationOfSymbolicLink(atPath: path)) != nil else { continue }
                links.append(folder + "/" + relative)
                if !manager.fileExists(atPath: path) { broken.append(folder + "/" + relative) }
            }
        }
        #expect(links.contains("Fuzz/Sources/ConnectionFuzzer/WireExchange.swift"), "the links were found: \(links)")
        #expect(broken == [])
    }

    /// A thread knows its loop in one way, `EventLoop.current` (the HTTP server's part on a loop,
    /// the stores and the feed all ask it): one thread-specific key in the sources, made there.
    @Test func theCurrentLoopIsTheOnlyThreadSpecificKey() throws {
        let files = try swiftFiles(under: "Sources").filter { $0.text.contains("pthread_key_create") }
        #expect(files.map(\.path) == ["Sources/EventLoops/EventLoop+Current.swift"])
        #expect(files.first.map { $0.text.components(separatedBy: "pthread_key_create(").count - 1 } == 1)
    }

    @Test func everySettingHasItsRowInTheREADMEAndItsKeyInTheShippedConfigFile() throws {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let config = try String(contentsOf: root.appendingPathComponent("Config/todo-server.json"), encoding: .utf8)
        let settings = ServerConfiguration.settings
        #expect(settings.count > 30)
        for setting in settings {
            #expect(
                readme.contains("| `\(setting.key)` | `\(setting.environmentVariable)` | `\(setting.flag)` |"),
                "README's configuration table has no row for \(setting.key)")
            #expect(config.contains("\"\(setting.key)\":"), "Config/todo-server.json has no \(setting.key)")
        }
    }
}
