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
}

/// Rebuilds the store's state from the newest snapshot and the journals after it, and gets the
/// last journal ready for appending (its torn tail cut off).
enum JournalRecovery {
    struct Recovered {
        var todos: [String: Todo]
        var revision: UInt64
        var fd: Int32
        var fileBytes: Int
        var report: RecoveryReport
    }

    static func recover(directory: String) throws(JournalError) -> Recovered {
        let names = try FileIO.fileNames(in: directory)
        let snapshots = names.compactMap { JournalFormat.generation(of: $0, prefix: "snapshot-", suffix: ".bin") }.sorted()
        let base = snapshots.last ?? 0
        var todos: [String: Todo] = [:]
        var revision: UInt64 = 0
        var report = RecoveryReport(todos: 0, snapshotTodos: 0, journalRecords: 0, droppedBytes: 0, generation: base)
        if let generation = snapshots.last {
            (todos, revision) = try readSnapshot(directory + "/" + JournalFormat.snapshotName(generation))
            report.snapshotTodos = todos.count
        }
        let journals = names.compactMap { JournalFormat.generation(of: $0, prefix: "journal-", suffix: ".log") }
            .filter { $0 >= base }.sorted()
        var last: (generation: UInt64, length: Int)?
        for (position, generation) in journals.enumerated() {
            let path = directory + "/" + JournalFormat.journalName(generation)
            let bytes = try FileIO.readAll(path)
            let isLast = position == journals.count - 1
            if bytes.count < JournalFormat.journalHeaderSize, isLast {
                // Created, then the crash came before its header was whole: an empty journal.
                try FileIO.truncate(path, to: 0)
                report.droppedBytes += bytes.count
                last = (generation, 0)
                continue
            }
            try JournalFormat.checkHeader(
                bytes, magic: JournalFormat.journalMagic, headerSize: JournalFormat.journalHeaderSize, path: path)
            let scanned = JournalFormat.scanRecords(bytes, from: JournalFormat.journalHeaderSize)
            if scanned.trailingBytes > 0 {
                guard isLast else { throw .corrupt(path: path, offset: scanned.validLength, reason: "bad record") }
                try FileIO.truncate(path, to: scanned.validLength)
                report.droppedBytes += scanned.trailingBytes
            }
            for record in scanned.records { apply(record, to: &todos, revision: &revision) }
            report.journalRecords += scanned.records.count
            last = (generation, scanned.validLength)
        }
        let (fd, fileBytes) = try openForAppending(directory: directory, last: last, base: max(base, 1))
        report.todos = todos.count
        report.generation = last?.generation ?? max(base, 1)
        return Recovered(todos: todos, revision: revision, fd: fd, fileBytes: fileBytes, report: report)
    }

    static func apply(_ record: JournalRecord, to todos: inout [String: Todo], revision: inout UInt64) {
        switch record {
        case .put(let todo): todos[todo.id] = todo
        case .remove(let id, _): todos[id] = nil
        case .removeAll: todos.removeAll()
        }
        revision = max(revision, record.revision)
    }

    private static func readSnapshot(_ path: String) throws(JournalError) -> ([String: Todo], UInt64) {
        let bytes = try FileIO.readAll(path)
        try JournalFormat.checkHeader(
            bytes, magic: JournalFormat.snapshotMagic, headerSize: JournalFormat.snapshotHeaderSize, path: path)
        let (revision, count) = bytes.withUnsafeBytes { raw in
            (UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 20, as: UInt64.self)),
             UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 28, as: UInt64.self)))
        }
        let scanned = JournalFormat.scanRecords(bytes, from: JournalFormat.snapshotHeaderSize)
        guard scanned.trailingBytes == 0, scanned.records.count == count else {
            throw .corrupt(path: path, offset: scanned.validLength, reason: "snapshot holds \(scanned.records.count) of \(count) records")
        }
        var todos: [String: Todo] = [:]
        todos.reserveCapacity(Int(count))
        var ignored: UInt64 = 0
        for record in scanned.records { apply(record, to: &todos, revision: &ignored) }
        return (todos, revision)
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
