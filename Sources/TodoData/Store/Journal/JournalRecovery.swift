import ChangeFeed
import Glibc

/// What start-up found in the data directory.
public struct RecoveryReport: Sendable, Equatable {
    public var todos: Int
    /// To-dos read from the snapshot, and records replayed from journals after it.
    public var snapshotTodos: Int
    public var journalRecords: Int
    /// Bytes of a torn last record that were cut off (0 after a clean stop).
    public var droppedBytes: Int
    public var generation: UInt64
    /// What `--recover truncate` gave up, one sentence per damaged or missing file (empty when
    /// nothing was damaged).
    public var losses: [String] = []
}

/// What start-up does with damage that would lose changes if it were cut away.
public enum RecoveryMode: String, Sendable, CaseIterable {
    /// Refuse to start, naming the file and the offset (the default).
    case off
    /// Keep everything before the damage, move the damaged files aside (`*.damaged`), say what
    /// was lost, and start from a new snapshot of what was kept.
    case truncate
}

/// Rebuilds the store's state from the newest snapshot and the journals after it, and gets the
/// last journal ready for appending. Only an incomplete last record (a crash in the middle of a
/// write) is cut off by itself; damage with whole records after it, a snapshot that a journal
/// continues from but that is missing, or a missing journal stop the start unless the mode is
/// `truncate`.
enum JournalRecovery {
    struct Recovered {
        var todos: OwnedTodos
        var fd: Int32
        var fileBytes: Int
        var report: RecoveryReport
        /// The changes replayed from the journals, at their positions (generation, record number):
        /// the change feed's window after a restart, each with the owner whose log it goes to.
        /// Empty when damage was cut away.
        var changes: [(owner: Owner, change: StoreChange)] = []
        /// Where the replayable changes start: every position after it is in `changes` or later.
        var changesFloor = ChangePosition(major: 1, minor: 0)
        /// Records in the journal that continues (the next one is number `records + 1`).
        var records: UInt64 = 0
    }

    static func recover(directory: String, mode: RecoveryMode = .off) throws(JournalError) -> Recovered {
        let names = try FileIO.fileNames(in: directory)
        let snapshots = names.compactMap { JournalFormat.generation(of: $0, prefix: "snapshot-", suffix: ".bin") }.sorted()
        let allJournals = names.compactMap { JournalFormat.generation(of: $0, prefix: "journal-", suffix: ".log") }.sorted()
        let base = snapshots.last ?? 0
        var todos = OwnedTodos()
        var report = RecoveryReport(todos: 0, snapshotTodos: 0, journalRecords: 0, droppedBytes: 0, generation: base)
        var damaged: [String] = []
        if let generation = snapshots.last {
            let path = directory + "/" + JournalFormat.snapshotName(generation)
            let snapshot = try readSnapshot(path, mode: mode)
            todos = snapshot.todos
            report.snapshotTodos = todos.count
            if let loss = snapshot.loss {
                report.losses.append(loss)
                damaged.append(path)
            }
        }
        var journals = allJournals.filter { $0 >= base }
        // The journals must start at the snapshot's generation (at 1 without one), without a gap.
        var cut: Int?
        func name(_ file: String) -> String { directory + "/" + file }
        if base == 0, let first = journals.first, first != 1 {
            let missing = JournalFormat.snapshotName(first)
            guard mode == .truncate else {
                throw .missing(path: name(missing), neededBy: name(JournalFormat.journalName(first)))
            }
            report.losses.append("\(missing) was missing: the to-dos it held are lost; the journals after it were replayed")
        } else if base > 0, journals.first != base {
            let missing = JournalFormat.journalName(base)
            guard mode == .truncate else { throw .missing(path: name(missing), neededBy: name(JournalFormat.snapshotName(base))) }
            report.losses.append(
                "\(missing) was missing: the changes after \(JournalFormat.snapshotName(base)) are lost, "
                    + "and those of \(journals.count) later journal(s)")
            cut = 0
        } else if let gap = journals.indices.dropFirst().first(where: { journals[$0] != journals[$0 - 1] + 1 }) {
            let missing = JournalFormat.journalName(journals[gap - 1] + 1)
            guard mode == .truncate else { throw .missing(path: name(missing), neededBy: name(JournalFormat.journalName(journals[gap]))) }
            report.losses.append("\(missing) was missing: its changes and those of \(journals.count - gap) later journal(s) are lost")
            cut = gap
        }
        if let cut {
            damaged += journals[cut...].map { name(JournalFormat.journalName($0)) }
            journals = Array(journals[..<cut])
        }
        var last: (generation: UInt64, length: Int)?
        var changes: [(owner: Owner, change: StoreChange)] = []
        var lastRecords: UInt64 = 0
        for (position, generation) in journals.enumerated() {
            let path = directory + "/" + JournalFormat.journalName(generation)
            let bytes = try FileIO.readAll(path)
            let isLast = position == journals.count - 1
            if bytes.count < JournalFormat.journalHeaderSize, isLast {
                // Created, then the crash came before its header was whole: an empty journal.
                try FileIO.truncate(path, to: 0)
                report.droppedBytes += bytes.count
                last = (generation, 0)
                lastRecords = 0
                continue
            }
            try JournalFormat.checkHeader(
                bytes, magic: JournalFormat.journalMagic, headerSize: JournalFormat.journalHeaderSize, path: path)
            let scanned = JournalFormat.scanRecords(bytes, from: JournalFormat.journalHeaderSize)
            for (number, record) in scanned.records.enumerated() {
                todos.apply(record)
                let position = ChangePosition(major: generation, minor: UInt64(number + 1))
                changes.append((record.owner, StoreChange(position: position, kind: record.record.changeKind)))
            }
            lastRecords = UInt64(scanned.records.count)
            report.journalRecords += scanned.records.count
            last = (generation, scanned.validLength)
            guard scanned.trailingBytes > 0 else { continue }
            let following = JournalFormat.recordsAfterDamage(bytes, from: scanned.validLength)
            if isLast, following == 0 {
                // A record torn by a crash: nothing whole follows it.
                try FileIO.truncate(path, to: scanned.validLength)
                report.droppedBytes += scanned.trailingBytes
                continue
            }
            let later = journals.count - position - 1
            var reason = "a record fails its checksum or does not decode"
            if following > 0 { reason += "; \(following) whole record(s) follow it" }
            if later > 0 { reason += "; \(later) later journal(s) follow" }
            guard mode == .truncate else { throw .corrupt(path: path, offset: scanned.validLength, reason: reason) }
            report.losses.append(
                "\(JournalFormat.journalName(generation)) was damaged at byte \(scanned.validLength): kept the "
                    + "\(scanned.records.count) record(s) before it; lost \(scanned.trailingBytes) byte(s) "
                    + "(\(following) whole record(s)) after it and \(later) later journal(s)")
            damaged += journals[position...].map { directory + "/" + JournalFormat.journalName($0) }
            break
        }
        report.todos = todos.count
        if !report.losses.isEmpty {
            // Start afresh after everything there is, from a snapshot of what was kept.
            let generation = max(allJournals.last ?? 0, snapshots.last ?? 0) + 1
            let (fd, fileBytes) = try openForAppending(directory: directory, last: nil, base: generation)
            try SnapshotWriter.write(todos, generation: generation, directory: directory)
            for path in damaged { try FileIO.rename(path, to: path + ".damaged") }
            try FileIO.syncDirectory(directory)
            report.generation = generation
            return Recovered(
                todos: todos, fd: fd, fileBytes: fileBytes, report: report,
                changesFloor: ChangePosition(major: generation, minor: 0))
        }
        let (fd, fileBytes) = try openForAppending(directory: directory, last: last, base: max(base, 1))
        report.generation = last?.generation ?? max(base, 1)
        return Recovered(
            todos: todos, fd: fd, fileBytes: fileBytes, report: report, changes: changes,
            changesFloor: ChangePosition(major: journals.first ?? report.generation, minor: 0),
            records: last == nil ? 0 : lastRecords)
    }

    /// A snapshot's to-dos (their revisions in them; the header's store revision is not read);
    /// a damaged one is refused, or under `truncate` gives the
    /// records before the damage and a sentence on what was lost.
    private static func readSnapshot(
        _ path: String, mode: RecoveryMode
    ) throws(JournalError) -> (todos: OwnedTodos, loss: String?) {
        let bytes = try FileIO.readAll(path)
        try JournalFormat.checkHeader(
            bytes, magic: JournalFormat.snapshotMagic, headerSize: JournalFormat.snapshotHeaderSize, path: path)
        let count = bytes.withUnsafeBytes { raw in UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 28, as: UInt64.self)) }
        let scanned = JournalFormat.scanRecords(bytes, from: JournalFormat.snapshotHeaderSize)
        var loss: String?
        if scanned.trailingBytes != 0 || scanned.records.count != count {
            let reason = "snapshot holds \(scanned.records.count) of \(count) records"
            guard mode == .truncate else { throw .corrupt(path: path, offset: scanned.validLength, reason: reason) }
            loss =
                "\(path.split(separator: "/").last ?? "") was damaged at byte \(scanned.validLength): kept "
                + "\(scanned.records.count) of its \(count) to-dos"
        }
        var todos = OwnedTodos()
        todos.shared.reserveCapacity(scanned.records.count(where: { $0.owner.isShared }))
        for record in scanned.records { todos.apply(record) }
        return (todos, loss)
    }

    /// Opens the last journal for appending, writing its header if it has none, or starts
    /// journal `base` when there is none.
    private static func openForAppending(
        directory: String, last: (generation: UInt64, length: Int)?, base: UInt64
    ) throws(JournalError) -> (Int32, Int) {
        let generation = last?.generation ?? base
        let path = directory + "/" + JournalFormat.journalName(generation)
        let fd = try FileIO.openForAppend(path, create: last == nil)
        guard let last, last.length > 0 else {
            let header = JournalFormat.journalHeader(generation: generation)
            try FileIO.writeAll(fd, header, path: path)
            try FileIO.sync(fd, path: path)
            try FileIO.syncDirectory(directory)
            return (fd, header.count)
        }
        return (fd, last.length)
    }
}
