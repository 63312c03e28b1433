import Glibc

/// The JSON config file: found (or not), read, and parsed with `StrictJSONParser` into its members.
struct ConfigurationFile {
    /// Absolute path of the file (or where the default one was looked for).
    var path: String
    var status: ConfigurationProvenance.File
    var members: [String: JSONValue]

    /// An explicit path must name a readable file; the default one may be missing (that is
    /// reported in `status`, and start-up says so).
    static func load(
        explicitPath: String?, explicitSource: ConfigurationSource, defaultPath: String, workingDirectory: String
    ) throws(ConfigurationError) -> ConfigurationFile {
        let relative = explicitPath ?? defaultPath
        let path = relative.hasPrefix("/") ? relative : workingDirectory + "/" + relative
        if explicitPath == nil, access(path, F_OK) != 0 {
            return ConfigurationFile(path: path, status: .missingDefault(path), members: [:])
        }
        let source: ConfigurationSource? = explicitPath == nil ? nil : explicitSource
        func failure(_ problem: String) -> ConfigurationError {
            ConfigurationError(key: "config", problem: "config file \(path) \(problem)", source: source)
        }
        let bytes: [UInt8]
        switch read(path) {
        case .success(let read): bytes = read
        case .failure(let reason): throw failure("cannot be read: \(reason)")
        }
        guard !bytes.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) else {
            throw failure("is empty; write {} for a file that sets nothing")
        }
        switch StrictJSONParser.parse(bytes) {
        case .failure(let parse):
            let (line, column) = position(of: parse.offset, in: bytes)
            throw failure("is not valid JSON: \(parse.message) at line \(line), column \(column)")
        case .success(.object(let members)):
            return ConfigurationFile(path: path, status: .used(path), members: members)
        case .success(let value):
            throw failure("must hold one JSON object, not \(value.typeName)")
        }
    }

    /// The whole file, or why not (the system's reason, such as "No such file or directory").
    static func read(_ path: String) -> Result<[UInt8], ReadFailure> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(ReadFailure(errno: errno)) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return .success(bytes) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(ReadFailure(errno: errno))
            }
            bytes += chunk[..<count]
            if bytes.count > 16 << 20 { return .failure(ReadFailure(reason: "larger than 16 MiB")) }
        }
    }

    struct ReadFailure: Error, CustomStringConvertible {
        var description: String

        init(errno code: Int32) { description = String(cString: strerror(code)) }
        init(reason: String) { description = reason }
    }

    /// 1-based line and column of a byte offset.
    private static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        let before = bytes[..<min(offset, bytes.count)]
        let line = before.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        let column = before.count - (before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
        return (line, column)
    }
}
