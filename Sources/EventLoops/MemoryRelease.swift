import CSupport
import Synchronization

/// Hands freed memory back to the system after much of it was freed (a store emptied). The
/// allocator is the process's, so this is process-wide: mimalloc keeps free pages per thread, and
/// blocks one thread frees into another thread's pages wait there until that thread collects; a
/// loop that stays idle would keep them. So a release collects the calling thread's pages at once
/// and asks every loop to collect its own at its next sweep (once a second).
public enum MemoryRelease {
    /// Releases requested so far; each loop compares it with the last it acted on.
    private static let requests = Atomic<Int>(0)

    /// This thread's free pages go back now, every loop's at its next sweep.
    public static func release() {
        requests.add(1, ordering: .releasing)
        todo_release_free_memory()
    }

    /// For a loop's sweep: collects this thread's free pages (mimalloc) when a release was requested
    /// since `seen` (one atomic load otherwise). With glibc's malloc nothing is needed here.
    public static func collectIfRequested(since seen: inout Int) {
        let current = requests.load(ordering: .acquiring)
        guard current != seen else { return }
        seen = current
        todo_collect_thread_memory()
    }
}
