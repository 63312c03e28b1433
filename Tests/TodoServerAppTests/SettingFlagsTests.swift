import ArgumentParser
import Testing
import TodoServer

@testable import TodoServerApp

/// The command line's flags come from the settings table, one per row (`SettingFlags`): parsed in
/// process, with ArgumentParser's own help and errors. The process's `--help`, `--version` and a
/// flag's value checked by the loader: `StartupAndLogsEndToEndTests`, `ProcessEndToEndTests`.
@Suite struct SettingFlagsTests {
    @Test("every row of the table has its flag, and each flag's value lands under its row's key")
    func everyRowHasAFlag() throws {
        let flags = ServerConfiguration.flags
        #expect(flags.map(\.key) == ServerConfiguration.settingKeys)
        #expect(flags.count == 60)
        for flag in flags {
            let parsed = try TodoServerCommand.parse(["--\(flag.name)", "value of \(flag.key)"])
            #expect(parsed.settings.values == [flag.key: "value of \(flag.key)"], "\(flag.key)")
        }
        let all = try TodoServerCommand.parse(flags.flatMap { ["--\($0.name)", "v-\($0.key)"] } + ["--config", "c.json"])
        #expect(all.settings.values == Dictionary(uniqueKeysWithValues: flags.map { ($0.key, "v-\($0.key)") }))
        #expect(all.config == "c.json")
    }

    @Test("the flags' names and values as given: nothing given is nothing set, a value may start with -")
    func namesAndValues() throws {
        #expect(try TodoServerCommand.parse([]).settings.values == [:])
        let parsed = try TodoServerCommand.parse(["--port", "-1", "--max-body-bytes", "--5", "--time-zone", "Europe/Berlin"])
        #expect(parsed.settings.values == ["port": "-1", "maxBodyBytes": "--5", "timeZone": "Europe/Berlin"])
        #expect(parsed.config == nil)
        let flagNames = ServerConfiguration.flags.map(\.name)
        #expect(flagNames.first == "host")
        #expect(flagNames.contains("max-uri-bytes"))
        #expect(flagNames.contains("database-clear-lock-wait-milliseconds"))
        #expect(flagNames.contains("jwt-jwks-ca-file"))
        #expect(flagNames.contains("database-insert-batch"))
        #expect(Set(flagNames).count == flagNames.count)
    }

    @Test("--help lists each flag with its help and default, in the table's order, then --version and --help")
    func help() {
        let help = TodoServerCommand.helpMessage(columns: 10_000).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        var last = help.range(of: "--config <config> JSON config file (default Config/todo-server.json).")
        #expect(last != nil)
        for flag in ServerConfiguration.flags {
            let entry = "--\(flag.name) <\(flag.name)> \(flag.help)"
            let found = help.range(of: entry)
            #expect(found != nil, "\(entry)")
            if let found, let previous = last { #expect(previous.upperBound <= found.lowerBound, "\(flag.key) in the table's order") }
            last = found
        }
        #expect(help.contains("--port <port> Port to bind; 0 picks a free one. (default 8080)"))
        #expect(help.contains("--auth-tokens <auth-tokens> Comma-separated bearer tokens that may read and write;"))
        #expect(help.hasSuffix("--version Show the version. -h, --help Show help information."))
    }

    @Test("an unknown flag and a missing value: ArgumentParser's messages, exit code 64")
    func errors() {
        do {
            _ = try TodoServerCommand.parse(["--prot", "1"])
            Issue.record("an unknown flag parsed")
        } catch {
            #expect(TodoServerCommand.message(for: error) == "Unknown option '--prot'. Did you mean '--port'?")
            #expect(TodoServerCommand.exitCode(for: error) == .validationFailure)
            #expect(TodoServerCommand.exitCode(for: error).rawValue == 64)
        }
        do {
            _ = try TodoServerCommand.parse(["--max-body-bytes"])
            Issue.record("a flag without its value parsed")
        } catch {
            #expect(TodoServerCommand.message(for: error) == "Missing value for '--max-body-bytes <max-body-bytes>'")
            #expect(TodoServerCommand.exitCode(for: error).rawValue == 64)
        }
    }
}
