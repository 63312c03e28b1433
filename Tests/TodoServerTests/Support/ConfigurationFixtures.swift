import Foundation

@testable import TodoServer

/// What the configuration suites share: a config file in a temporary directory, and the error
/// loading a set of layers gives.
protocol ConfigurationFixtures {}

extension ConfigurationFixtures {
    /// Writes `json` to a new file in the temporary directory and returns its path.
    func writeFile(_ json: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("todo-\(UUID().uuidString).json").path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The error loading these layers gives, or nil when they load.
    func loadError(
        flags: [String: String] = [:], environment: [String: String] = [:], filePath: String? = nil
    ) -> ConfigurationError? {
        do {
            _ = try ServerConfiguration.load(flags: flags, environment: environment, filePath: filePath)
            return nil
        } catch {
            return error
        }
    }
}
