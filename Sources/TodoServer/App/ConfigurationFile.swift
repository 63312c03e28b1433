import Glibc
import TodoData

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
    /// Only a regular file is read: its type is checked before it is opened (a FIFO would block
    /// the open, and start-up with it, until something wrote to it) and again on the descriptor.
    static func read(_ path: String) -> Result<[UInt8], ReadFailure> {
        var info = stat()
        guard stat(path, &info) == 0 else { return .failure(ReadFailure(errno: errno)) }
        if let problem = ReadFailure(fileType: info.st_mode) { return .failure(problem) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return .failure(ReadFailure(errno: errno)) }
        defer { close(descriptor) }
        guard fstat(descriptor, &info) == 0 else { return .failure(ReadFailure(errno: errno)) }
        if let problem = ReadFailure(fileType: info.st_mode) { return .failure(problem) }
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

        /// Why a file of this type (`st_mode`) is not read; nil for a regular file.
        init?(fileType mode: mode_t) {
            switch mode & S_IFMT {
            case S_IFREG: return nil
            case S_IFDIR: description = String(cString: strerror(EISDIR))
            case S_IFIFO: description = "a FIFO, not a regular file"
            case S_IFSOCK: description = "a socket, not a regular file"
            case S_IFCHR, S_IFBLK: description = "a device, not a regular file"
            default: description = "not a regular file"
            }
        }
    }

    /// 1-based line and column of a byte offset.
    private static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        let before = bytes[..<min(offset, bytes.count)]
        let line = before.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        let column = before.count - (before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
        return (line, column)
    }
}
