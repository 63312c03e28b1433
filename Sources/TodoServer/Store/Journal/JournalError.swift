import Glibc

/// Why the data directory cannot be used; each message names the file and what to do.
public enum JournalError: Error, CustomStringConvertible, Equatable {
    case io(path: String, operation: String, errno: Int32)
    case notAJournal(path: String)
    case unknownVersion(path: String, found: UInt32, supported: UInt32)
    case corrupt(path: String, offset: Int, reason: String)
    case locked(path: String)

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
            "\(path) is damaged at byte \(offset) (\(reason)) before its last record; "
                + "refusing to start rather than lose the to-dos after it; restore it from a backup"
        case .locked(let path):
            "\(path) is locked: another todo-server uses this data directory"
        }
    }
}
