import Glibc

/// Writes a snapshot file atomically: to a temporary name, synced, then renamed into place. The
/// header's store revision is 0: revisions are per to-do, in each record. Every owner's to-dos:
/// the shared list's as `put` records (as before owners), a named owner's as that owner's
/// records (`OwnedRecord`); the header counts them all.
enum SnapshotWriter {
    package static func write(
        _ todos: OwnedTodos, generation: UInt64, directory: String
    ) throws(JournalError) {
        let path = directory + "/" + JournalFormat.snapshotName(generation)
        let temporary = path + ".tmp"
        unlink(temporary)
        let fd = try FileIO.openForAppend(temporary, create: true)
        var closed = false
        defer { if !closed { close(fd) } }
        var buffer = JournalFormat.snapshotHeader(generation: generation, revision: 0, count: todos.count)
        buffer.reserveCapacity(1 << 20)
        for (owner, owned) in [(Owner.shared, todos.shared)] + todos.owners.map({ ($0.key, $0.value) }) {
            for todo in owned.values {
                JournalRecord.put(todo).frame(into: &buffer, owner: owner)
                if buffer.count >= 1 << 20 {
                    try FileIO.writeAll(fd, buffer, path: temporary)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
        }
        try FileIO.writeAll(fd, buffer, path: temporary)
        guard fsync(fd) == 0 else { throw .io(path: temporary, operation: "fsync", errno: errno) }
        close(fd)
        closed = true
        try FileIO.rename(temporary, to: path)
        try FileIO.syncDirectory(directory)
    }
}
