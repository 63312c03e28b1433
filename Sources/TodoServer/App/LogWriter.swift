import EventLoops
import Glibc
import Synchronization
import TodoData

/// Log lines on their way to a descriptor (standard output) without ever blocking the caller: a
/// buffer bounded in bytes, drained in batches by one writer thread. When the reader of the
/// descriptor stalls (a full pipe), lines past the bound are dropped and counted; once writing
/// resumes, one notice line says how many were lost. `flush` waits (within a deadline) for the
/// buffer to drain.
///
/// Batches: the first line queued after the buffer emptied wakes the writer, which then lets lines
/// gather for `batchInterval` (or until `eagerBytes` are queued, or a flush or close asks) and
/// writes them with one `write(2)`. Waking the writer for every line cost each request a futex wake,
/// a context switch and a system call on a busy server; a batch costs them once per interval. A line
/// reaches the descriptor at most `batchInterval` after it was queued; `.zero` writes each line as
/// soon as the writer runs.
public final class LogWriter: @unchecked Sendable {
    private let descriptor: Int32
    private let capacityBytes: Int
    private let batchInterval: Duration
    private let notice: @Sendable (Int) -> [UInt8]
    private let dropped = Atomic<Int>(0)
    private let writes = Atomic<Int>(0)
    // Guarded by `condition`.
    private let condition = ConditionLock()
    /// The queued lines, back to back. The writer thread swaps it with its own drained buffer, so
    /// that (below `keptCapacity`) neither is allocated again for every batch.
    private var pending: [UInt8] = []
    /// Largest buffer capacity kept for reuse after a batch: a burst does not stay resident.
    private static let keptCapacity = 64 << 10
    /// Queued bytes at which the writer stops waiting for the interval to end.
    static let eagerBytes = 32 << 10
    /// Bytes queued or being written; the bound applies to these.
    private var bufferedBytes = 0
    private var droppedSinceNotice = 0
    private var busy = false
    private var closed = false
    /// Callers of `flush` waiting: the writer writes at once while there are any.
    private var flushers = 0

    /// `notice` formats the line that reports a number of dropped lines.
    public init(
        descriptor: Int32 = STDOUT_FILENO, capacityBytes: Int, batchInterval: Duration = .milliseconds(20),
        notice: @escaping @Sendable (Int) -> [UInt8]
    ) {
        self.descriptor = descriptor
        self.capacityBytes = capacityBytes
        self.batchInterval = batchInterval
        self.notice = notice
        DetachedThread.start { [self] in drain() }
    }

    /// Lines dropped since start because the buffer was full.
    public var droppedLines: Int { dropped.load(ordering: .relaxed) }

    /// `write(2)` calls made so far (batches, plus the retries of partial writes).
    public var writeCalls: Int { writes.load(ordering: .relaxed) }

    /// Queues `line` (with its newline), or drops and counts it when the buffer is full. Never waits
    /// for the descriptor.
    public func enqueue(_ line: [UInt8]) {
        line.withUnsafeBytes { enqueue($0) }
    }

    /// `enqueue(_:)` for a line in borrowed memory: copied into the buffer before this returns.
    public func enqueue(_ line: UnsafeRawBufferPointer) {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, bufferedBytes + line.count <= capacityBytes else {
            droppedSinceNotice += 1
            dropped.add(1, ordering: .relaxed)
            return
        }
        let before = pending.count
        pending.append(contentsOf: UnsafeBufferPointer(start: line.baseAddress?.assumingMemoryBound(to: UInt8.self), count: line.count))
        bufferedBytes += line.count
        // The writer sleeps without a deadline only while nothing is queued, and it shortens its
        // batch wait once `eagerBytes` are: only those two moments need a wake-up.
        if before == 0 || (before < Self.eagerBytes && pending.count >= Self.eagerBytes) {
            condition.signal()
        }
    }

    /// Waits until every queued line (and any drop notice) is written, or `timeout` passes.
    /// Returns whether everything was written.
    @discardableResult
    public func flush(timeout: Duration) -> Bool {
        let deadline = ConditionLock.Deadline.after(timeout)
        condition.lock()
        defer { condition.unlock() }
        flushers += 1
        defer { flushers -= 1 }
        condition.broadcast()
        while !pending.isEmpty || busy || droppedSinceNotice > 0 {
            guard condition.wait(until: deadline) else { return false }
        }
        return true
    }

    /// Flushes within `timeout`, then stops the writer thread; later lines are dropped.
    public func close(timeout: Duration) {
        flush(timeout: timeout)
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    private func drain() {
        // The buffer the last batch was written from, empty: `pending`'s next storage.
        var spare: [UInt8] = []
        while true {
            condition.lock()
            while pending.isEmpty, droppedSinceNotice == 0, !closed { condition.wait() }
            if closed, pending.isEmpty {
                condition.unlock()
                return
            }
            // Let the batch gather, unless someone waits for it or it is already large.
            if batchInterval > .zero {
                let deadline = ConditionLock.Deadline.after(batchInterval)
                while !closed, flushers == 0, pending.count < Self.eagerBytes {
                    guard condition.wait(until: deadline) else { break }
                }
            }
            swap(&pending, &spare)
            let lost = droppedSinceNotice
            droppedSinceNotice = 0
            busy = true
            condition.unlock()

            let batchBytes = spare.count
            // The notice goes first: the lines it counts were dropped before this batch's later ones
            // were queued, and a server's last line stays its own ("stopped").
            if lost > 0 { spare.insert(contentsOf: notice(lost), at: 0) }
            write(spare)
            if spare.capacity > Self.keptCapacity {
                spare = []
            } else {
                spare.removeAll(keepingCapacity: true)
            }

            condition.lock()
            bufferedBytes -= batchBytes
            busy = false
            if flushers > 0 { condition.broadcast() }
            condition.unlock()
        }
    }

    /// Writes all of `bytes`, blocking this thread (only) while the descriptor is full.
    private func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                writes.add(1, ordering: .relaxed)
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else if written < 0, errno == EAGAIN {
                    // A non-blocking descriptor: wait here, on the writer thread, until it takes more.
                    var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, 1000)
                } else {
                    return
                }
            }
        }
    }
}

extension LogWriter {
    /// Standard output with the configured buffer; the drop notice in the configured format.
    public static func standardOutput(for configuration: ServerConfiguration) -> LogWriter {
        let format = configuration.logFormat
        return LogWriter(
            descriptor: STDOUT_FILENO, capacityBytes: configuration.logBufferBytes,
            batchInterval: .milliseconds(configuration.logFlushMilliseconds)
        ) { count in
            StdoutLogHandler.line(
                level: .warning, label: "todo-server", metadata: ["dropped": "\(count)"],
                message: "\(count) log lines dropped: standard output was not read fast enough (log_lines_dropped_total on /metrics)",
                format: format)
        }
    }
}
