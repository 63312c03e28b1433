import LockTracing
import Synchronization

/// The base URL each loop built last, with the `Host` value it was built from: a loop's requests
/// mostly carry one `Host`, and building `http://` + host anew would allocate (and release) a
/// string per request.
///
/// One slot per loop, each behind its own lock: a loop only ever takes its own (uncontended);
/// callers without a loop (tests, fuzzers: loop 0) may share one slot from several threads.
final class BaseURLCache: Sendable {
    private struct Entry {
        var host: String
        var url: String
    }

    private final class Slot: Sendable {
        let entry = Mutex<Entry?>(nil)
    }

    private let slots: [Slot]

    init(loopCount: Int) {
        slots = (0..<max(1, loopCount)).map { _ in Slot() }
    }

    /// The base URL for `host` on `loop`: the one built last there if it was built from the same
    /// host, else `make(host)` (kept for the next request).
    func url(loop: Int, host: String, make: (String) -> String) -> String {
        let slot = slots[loop % slots.count]
        if let hit = slot.entry.withTracedLock({ entry in entry?.host == host ? entry?.url : nil }) { return hit }
        let url = make(host)
        slot.entry.withTracedLock { entry in entry = Entry(host: host, url: url) }
        return url
    }
}
