import Glibc
import TodoData

/// A JWK Set read from a file (`jwtJwksFile`) and read again when the file changes, so that keys
/// rotate without a restart. `refresh(now:)` looks at the file at most once per `checkInterval`
/// (one `stat`), and reads it only when its identity changed: device, inode, size, modification
/// or status-change time (a rename over it, an edit in place, a `touch`). A changed file that is
/// not a usable JWK Set (unreadable, missing for a moment, half written, broken) keeps the last
/// good set in effect; the reason is returned once per change of the file, for the caller's log
/// line, and the same bad file is not read again.
///
/// A value: whoever calls `refresh` owns it (a loop's timer, or a lock around it on the request
/// path), and hands `keys` to the verifiers.
public struct JWKSFile: Sendable {
    /// What a `refresh` found.
    public enum Refresh: Sendable {
        /// Not looked at (checked less than `checkInterval` ago), or the same file as before.
        case unchanged
        /// The file changed and holds a usable set: `keys` is that set now.
        case reloaded(JWKSet)
        /// The file changed (or went away) and is not usable, for this reason: `keys` is still the
        /// last good set.
        case kept(reason: String)
    }

    /// The file's path, as configured.
    public let path: String
    public let limits: JWKSet.Limits
    /// The least time between two looks at the file, in milliseconds.
    public let checkInterval: Int64
    /// The set in effect: the last good one read.
    public private(set) var keys: JWKSet
    /// The identity of the file last read (good or bad), or why it could not be looked at.
    private var seen: Seen
    private var checked: Timestamp

    private enum Seen: Equatable {
        case file(Identity)
        case missing(reason: String)
    }

    /// What tells one content of a file from the next without reading it.
    private struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: timespec
        var changed: timespec

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = info.st_mtim
            changed = info.st_ctim
        }

        static func == (lhs: Identity, rhs: Identity) -> Bool {
            lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
                && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
                && lhs.changed.tv_sec == rhs.changed.tv_sec && lhs.changed.tv_nsec == rhs.changed.tv_nsec
        }
    }

    /// The file read at start: a usable JWK Set, or why not (start-up refuses to go on without one).
    public static func load(
        path: String, limits: JWKSet.Limits = JWKSet.Limits(), checkInterval: Int64 = 1000, now: Timestamp
    ) -> Result<JWKSFile, JWKSet.Failure> {
        let (identity, read) = Self.read(path, limits: limits)
        switch read.flatMap({ JWKSet.parse($0, limits: limits) }) {
        case .failure(let failure): return .failure(failure)
        case .success(let keys):
            return .success(
                JWKSFile(
                    path: path, limits: limits, checkInterval: checkInterval, keys: keys,
                    seen: identity.map(Seen.file) ?? .missing(reason: ""),
                    checked: now))
        }
    }

    private init(path: String, limits: JWKSet.Limits, checkInterval: Int64, keys: JWKSet, seen: Seen, checked: Timestamp) {
        self.path = path
        self.limits = limits
        self.checkInterval = checkInterval
        self.keys = keys
        self.seen = seen
        self.checked = checked
    }

    /// Looks at the file if `checkInterval` has passed since the last look, and reads it again if
    /// it changed (see the type).
    public mutating func refresh(now: Timestamp) -> Refresh {
        guard now.millisecondsSinceEpoch - checked.millisecondsSinceEpoch >= checkInterval else { return .unchanged }
        checked = now
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = "cannot be read: \(String(cString: strerror(errno)))"
            guard seen != .missing(reason: reason) else { return .unchanged }
            seen = .missing(reason: reason)
            return .kept(reason: reason)
        }
        guard seen != .file(Identity(info)) else { return .unchanged }
        let (identity, read) = Self.read(path, limits: limits)
        seen = identity.map(Seen.file) ?? .file(Identity(info))
        switch read.flatMap({ JWKSet.parse($0, limits: limits) }) {
        case .failure(let failure): return .kept(reason: failure.description)
        case .success(let keys):
            self.keys = keys
            return .reloaded(keys)
        }
    }

    /// The file's bytes (at most `limits.maxBytes`, more is a failure) and the identity of what was
    /// read, or why not. Only a regular file is opened (a FIFO would block).
    private static func read(_ path: String, limits: JWKSet.Limits) -> (Identity?, Result<[UInt8], JWKSet.Failure>) {
        func failure(_ reason: String) -> Result<[UInt8], JWKSet.Failure> { .failure(JWKSet.Failure(description: reason)) }
        func systemFailure() -> Result<[UInt8], JWKSet.Failure> { failure("cannot be read: \(String(cString: strerror(errno)))") }
        var info = stat()
        guard stat(path, &info) == 0 else { return (nil, systemFailure()) }
        guard info.st_mode & S_IFMT == S_IFREG else { return (Identity(info), failure("is not a regular file")) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return (Identity(info), systemFailure()) }
        defer { close(descriptor) }
        guard fstat(descriptor, &info) == 0 else { return (nil, systemFailure()) }
        let identity = Identity(info)
        guard info.st_mode & S_IFMT == S_IFREG else { return (identity, failure("is not a regular file")) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return (identity, .success(bytes)) }
            if count < 0 {
                if errno == EINTR { continue }
                return (identity, systemFailure())
            }
            bytes += chunk[..<count]
            if bytes.count > limits.maxBytes { return (identity, failure("larger than \(limits.maxBytes) bytes")) }
        }
    }
}
