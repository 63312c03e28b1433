/// A fault-injection seam for tests: runs on the journal's writer thread before each journal
/// write and fsync. It may block (a stalled disk) or answer an errno that the call then fails
/// with (EIO, which a real disk cannot be made to give here). Production uses `none`.
struct JournalFaults: Sendable {
    enum Operation: Sendable {
        case write, sync
    }

    let before: @Sendable (Operation) -> Int32?

    init(before: @escaping @Sendable (Operation) -> Int32?) {
        self.before = before
    }

    static let none = JournalFaults { _ in nil }
}
