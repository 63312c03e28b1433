import Foundation
import Logging
import TestSupport
import Testing

@testable import TodoData

/// A fresh directory under /tmp, removed when the test's value goes away.
final class DataDirectory {
    let path = NSTemporaryDirectory() + "todo-journal-\(UUID().uuidString)"
    deinit { try? FileManager.default.removeItem(atPath: path) }

    var journal: String { path + "/" + JournalFormat.journalName(1) }

    func open(
        fsync: FsyncPolicy = .always, compactionBytes: Int = 64 << 20, recovery: RecoveryMode = .off,
        faults: JournalFaults = .none
    ) throws -> DurableTodoStore {
        try DurableTodoStore(
            directory: path, fsync: fsync, compactionBytes: compactionBytes, recovery: recovery,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, faults: faults)
    }

    func files() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}

extension DataDirectory {
    /// A store on this directory (fsync always), and the gate its journal's writes pass.
    func openGated() throws -> (gate: WriterGate, store: DurableTodoStore) {
        let gate = WriterGate(operation: .write)
        return (gate, try open(fsync: .always, faults: gate.faults))
    }
}

/// Stalls the journal's writer at one operation until released, and may fail that operation.
final class WriterGate: @unchecked Sendable {
    private let operation: JournalFaults.Operation
    private let condition = NSCondition()
    private var armed = false
    private var reached = false
    private var failure: Int32?
    private var following: Int32?

    init(operation: JournalFaults.Operation) {
        self.operation = operation
    }

    /// The next `operation` stalls (and then fails with `code`, if given).
    func arm(failingWith code: Int32? = nil) {
        condition.withLock {
            armed = true
            reached = false
            failure = code
        }
    }

    /// Every later `operation` (after the stalled one) fails with `code` (nil: succeeds again).
    func failFollowing(with code: Int32?) {
        condition.withLock { following = code }
    }

    func release() {
        condition.withLock {
            armed = false
            condition.broadcast()
        }
    }

    /// Whether the writer has reached the stall (waits for it, with a deadline).
    func waitUntilReached() -> Bool {
        eventually { condition.withLock { reached } }
    }

    var faults: JournalFaults {
        JournalFaults { [self] operation in
            guard operation == self.operation else { return nil }
            return condition.withLock {
                guard armed else { return following }
                reached = true
                let code = failure
                while armed { condition.wait() }
                failure = nil
                return code
            }
        }
    }
}

/// A small tmpfs, for a real full disk.
struct TmpfsMount {
    let path = NSTemporaryDirectory() + "todo-tmpfs-\(UUID().uuidString)"

    init(bytes: Int) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=\(bytes)", "tmpfs", path]
        try mount.run()
        mount.waitUntilExit()
        try #require(mount.terminationStatus == 0, "mounting a tmpfs needs root (CAP_SYS_ADMIN)")
    }

    func unmount() {
        let umount = Process()
        umount.executableURL = URL(fileURLWithPath: "/bin/umount")
        umount.arguments = [path]
        try? umount.run()
        umount.waitUntilExit()
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A fault that can be switched on and off while the writer runs.
final class JournalFaultSwitch: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [JournalFaults.Operation: Int32] = [:]

    func set(_ operation: JournalFaults.Operation, _ code: Int32?) { lock.withLock { errors[operation] = code } }
    var faults: JournalFaults { JournalFaults { [self] operation in lock.withLock { errors[operation] } } }
}
