import Glibc

/// Why the data directory cannot be used; each message names the file and what to do.
public enum JournalError: Error, CustomStringConvertible, Equatable {
    case io(path: String, operation: String, errno: Int32)
    case notAJournal(path: String)
    case unknownVersion(path: String, found: UInt32, supported: UInt32)
    case corrupt(path: String, offset: Int, reason: String)
    case locked(path: String)
    /// A file that `neededBy` continues from is missing.
    case missing(path: String, neededBy: String)

    public var description: String {
        switch self {
        case .io(let path, let operation, let code):
            "cannot \(operation) \(path): \(String(cString: strerror(code)))"
        case .notAJournal(let path):
            "\(path) is not a TodoServer journal or snapshot (bad magic bytes); move it out of the data directory"
        case .unknownVersion(let path, let found, let supported):
            "\(path) has format version \(found), but this server reads version \(supported); "
                + "run a server that knows that version, or move the file out of the data directory"
        case .corrupt(let path, let offset, let reason):
            "\(path) is damaged at byte \(offset) (\(reason)); refusing to start rather than lose the changes "
                + "after it. Restore the file from a backup, or start once with --recover truncate (TODO_RECOVER=truncate) "
                + "to keep everything before byte \(offset) and move the damaged files aside"
        case .missing(let path, let neededBy):
            "\(path) is missing, but \(neededBy) continues from it (from byte 0); refusing to start with "
                + "only part of the to-dos. Put the file back, or start once with --recover truncate "
                + "(TODO_RECOVER=truncate) to keep what the other files hold"
        case .locked(let path):
            "\(path) is locked: another todo-server uses this data directory"
        }
    }
}
