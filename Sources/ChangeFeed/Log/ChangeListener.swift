/// The seam from a store to whoever follows its changes (the live feed's fan-out on each loop,
/// `FeedLoopFanout`): a change log tells its listeners that it took changes. A store appends each
/// change to its log under its own lock (so that a page and the cursor it reports agree), takes
/// the `ChangeAnnouncement` the append answers, and makes it once that lock is released: no loop is
/// woken while a store's lock is held.
public protocol ChangeListener: AnyObject, Sendable {
    /// The log took changes. On the appending thread, outside every lock of the log and of the
    /// store: quick (a flag, work queued on a loop), and never a call back into the store.
    func changesAppended()
}

/// The listeners to tell that changes were appended (`ChangeLog.appendNextUnannounced`,
/// `appendUnannounced`): told by `announce()`, which the appender calls once it let go of its locks.
public struct ChangeAnnouncement: Sendable {
    let listeners: [ChangeListening]

    /// Tells no one (nothing was appended).
    public static let none = ChangeAnnouncement(listeners: [])

    /// Whether it tells nobody.
    public var isEmpty: Bool { listeners.isEmpty }

    /// Tells each listener still alive that changes were appended.
    public func announce() {
        for entry in listeners { entry.listener?.changesAppended() }
    }
}

/// A listener as a log holds it: weakly, so that the log never keeps one alive.
struct ChangeListening: Sendable {
    weak let listener: (any ChangeListener)?
}
