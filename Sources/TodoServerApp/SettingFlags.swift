import ArgumentParser
import TodoServer

/// One flag for each row of the settings table (`ServerConfiguration.flags`): `--max-body-bytes`
/// for `maxBodyBytes`, with the row's help and default. The table is the flags' one home, as it is
/// for the config file's keys and the `TODO_*` variables.
///
/// ArgumentParser finds a command's options by reflecting on a value of its type (`Mirror`): this
/// type reflects as one optional `String` `@Option` per row, labelled with the row's key, and
/// decodes each by that key. So `--help`, "Unknown option", "Missing value" and the exit code 64
/// are ArgumentParser's own, as for options declared one by one.
///
/// Each flag takes its value as text, even one that starts with "-" ("--port -1"), so that the
/// loader checks it like a variable or a file value and names the flag in its error.
struct SettingFlags: ParsableArguments, CustomReflectable {
    /// The flags given, keyed by setting key.
    private(set) var values: [String: String] = [:]

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for flag in ServerConfiguration.flags {
            if let value = try container.decode(Option<String?>.self, forKey: Key(flag.key)).wrappedValue {
                values[flag.key] = value
            }
        }
    }

    var customMirror: Mirror {
        let options = ServerConfiguration.flags.map { flag in
            (
                label: Optional(flag.key),
                value: Option<String?>(name: .customLong(flag.name), parsing: .unconditional, help: .init(flag.help)) as Any
            )
        }
        return Mirror(self, children: options)
    }

    /// A setting's key as a coding key: ArgumentParser names each parsed value by its label.
    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }

        init(_ key: String) { stringValue = key }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
