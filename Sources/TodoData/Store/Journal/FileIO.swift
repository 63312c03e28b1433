import Glibc

/// The few POSIX file calls the journal needs, with errors that name the file.
enum FileIO {
    static func readAll(_ path: String) throws(JournalError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: path, operation: "open", errno: errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw .io(path: path, operation: "read", errno: errno) }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    static func openForAppend(_ path: String, create: Bool) throws(JournalError) -> Int32 {
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0), 0o644)
        guard fd >= 0 else { throw .io(path: path, operation: "open", errno: errno) }
        return fd
    }

    /// Writes all of `bytes`, retrying short writes and EINTR.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(JournalError) {
        var offset = 0
        while offset < bytes.count {
            let count = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw .io(path: path, operation: "write", errno: errno) }
            offset += count
        }
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(JournalError) {
        let outcome = bytes.withUnsafeBytes { raw in Result { () throws(JournalError) in try writeAll(fd, raw, path: path) } }
        try outcome.get()
    }

    static func sync(_ fd: Int32, path: String) throws(JournalError) {
        guard fdatasync(fd) == 0 else { throw .io(path: path, operation: "fsync", errno: errno) }
    }

    /// Makes renames and unlinks in `directory` durable.
    static func syncDirectory(_ directory: String) throws(JournalError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: directory, operation: "open", errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .io(path: directory, operation: "fsync", errno: errno) }
    }

    static func truncate(_ path: String, to length: Int) throws(JournalError) {
        guard Glibc.truncate(path, off_t(length)) == 0 else { throw .io(path: path, operation: "truncate", errno: errno) }
    }

    static func rename(_ from: String, to: String) throws(JournalError) {
        guard Glibc.rename(from, to) == 0 else { throw .io(path: from, operation: "rename", errno: errno) }
    }

    static func makeDirectory(_ path: String) throws(JournalError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, 0o755) != 0, errno != EEXIST { throw .io(path: prefix, operation: "create", errno: errno) }
        }
    }

    static func fileNames(in directory: String) throws(JournalError) -> [String] {
        guard let stream = opendir(directory) else { throw .io(path: directory, operation: "list", errno: errno) }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Takes an exclusive lock on `path` (created if missing) for the life of the returned descriptor.
    ///
    /// `flock` belongs to the open file description, which a child process shares from its fork to
    /// its exec (`O_CLOEXEC` only closes it at the exec): while this process starts another, a lock
    /// it released a moment ago can still look held. So a held lock is tried again for `patience`
    /// seconds before it counts as another server's.
    static func lockFile(_ path: String, patience: Double = 1) throws(JournalError) -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(path: path, operation: "open", errno: errno) }
        let deadline = monotonicSeconds() + patience
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EINTR || (errno == EWOULDBLOCK && monotonicSeconds() < deadline) else {
                close(fd)
                throw .locked(path: path)
            }
            usleep(10_000)
        }
        return fd
    }

    private static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
