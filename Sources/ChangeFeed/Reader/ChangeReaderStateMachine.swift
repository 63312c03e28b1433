/// When the PostgreSQL change reader (`PostgresChangeFeed`) reads the change table, reads again,
/// and tells the other instances: a pure machine, fed events with the time, returning what to do
/// (the reader carries it out on its loop).
///
/// - At start: the window (where the retained changes begin), then the changes after it; a window
///   that cannot be read yet is asked for again by the next event.
/// - A read is asked for by a change made here (`wrote`), by another instance's word (`notified`),
///   by the listener listening again (`listening`: what was said meanwhile is lost) and every
///   interval (`intervalEnded`). Reads start at least `gap` apart: an ask within the gap after the
///   last read's start arms the gap's timer (`armGap`), and a change after a quiet spell is read at
///   once. One read at a time: an ask during a read brings another after it; a page that came back
///   full is followed at once (catching up).
/// - A read that found nothing though a change was made here (or that failed) is followed by
///   another soon (`armReread`: the change's transaction may not have been older than every running
///   one yet), at most `rereadLimit` of them, the first after `gap` (at least 1 ms), each next after
///   twice the wait.
/// - Once a read has moved the log's head past what was last told after a change made here, the
///   other instances are told (`announce`, one at a time; changes made meanwhile are told by the
///   next).
/// - At most every `pruneInterval`, after a read that did not come back full, the table is pruned
///   (`prune`).
/// - A read that finds changes after its position pruned (`readPruned`: an instance pruned what
///   this one had not read yet) reads the window again, as at start.
struct ChangeReaderStateMachine: Sendable, Equatable {
    typealias Instant = ContinuousClock.Instant

    struct Settings: Sendable, Equatable {
        /// The least time between the starts of two reads.
        var gap: Duration
        /// Changes read per statement: a page of as many is followed at once.
        var pageSize = 1_000
        /// How often the table is pruned (by time: reads follow local writes and would prune many
        /// times a second under load).
        var pruneInterval: Duration = .seconds(10)
        /// Reads again after a read that found nothing though a change was made here, at most.
        var rereadLimit = 8
    }

    /// What the reader does.
    enum Action: Sendable, Equatable {
        /// Read where the window begins, then `windowLoaded` or `windowFailed`.
        case loadWindow
        /// Read the changes after `after` (nil: after the log's head), then `readDone` or
        /// `readFailed`; `heldBack`: the read the gap held back.
        case readNow(after: ChangePosition?, heldBack: Bool)
        /// `gapEnded` after this long.
        case armGap(after: Duration)
        /// `rereadDue` after this long.
        case armReread(after: Duration)
        /// Tell the other instances that changes made here can be read, then `announceDone`.
        case announce
        /// Prune the table to what is retained (nothing to tell back).
        case prune
    }

    let settings: Settings
    private(set) var closed = false
    /// The window is read: reads go on after it.
    private(set) var loaded = false
    /// A statement of the window or a read is in flight.
    private(set) var inFlight = false
    /// A read was asked for while one was in flight.
    private(set) var again = false
    /// When the last read started (nil: none yet), and when the table was last pruned.
    private(set) var lastRead: Instant?
    private(set) var lastPrune: Instant
    private(set) var gapArmed = false
    private(set) var rereadArmed = false
    /// Reads again since the last that found changes or the last write here.
    private(set) var rereads = 0
    /// A change was made through this instance since a read last found changes.
    private(set) var wroteSinceRead = false
    /// A read found changes after one was made here: tell the others.
    private(set) var toAnnounce = false
    private(set) var announcing = false
    /// The log's head when the others were last told: a write here is told once a read has moved
    /// the head past it, even when the read that moved it started before the write asked.
    private(set) var announcedUpTo = ChangePosition(major: 0, minor: 0)
    /// The position of the last change read, kept or not: the next read starts after it (nil:
    /// after the log's head).
    private(set) var readUpTo: ChangePosition?

    init(settings: Settings, now: Instant) {
        self.settings = settings
        lastPrune = now
    }

    /// The reader starts: the window first.
    mutating func start() -> [Action] {
        guard !closed, !loaded, !inFlight else { return [] }
        inFlight = true
        return [.loadWindow]
    }

    /// The window begins at `start` (the reader reset its logs there): reads go on after it.
    mutating func windowLoaded(start: ChangePosition, now: Instant) -> [Action] {
        inFlight = false
        guard !closed else { return [] }
        announcedUpTo = start
        readUpTo = nil
        loaded = true
        return poll(now: now)
    }

    /// The window could not be read (the database not reachable yet): the next ask tries again.
    mutating func windowFailed() -> [Action] {
        inFlight = false
        return []
    }

    /// A change was made through this instance.
    mutating func wrote(now: Instant) -> [Action] {
        guard !closed else { return [] }
        wroteSinceRead = true
        rereads = 0
        return poll(now: now)
    }

    /// A read starting took a write's ask (made through this instance) before the ask's own
    /// `wrote` came: it counts as a write from now on.
    mutating func askTaken() {
        wroteSinceRead = true
    }

    /// Another instance said it read changes made through it (`NOTIFY`).
    mutating func notified(now: Instant) -> [Action] { poll(now: now) }

    /// The listener listens (again): what other instances said meanwhile is lost.
    mutating func listening(now: Instant) -> [Action] { poll(now: now) }

    /// An interval passed: a read whatever happened.
    mutating func intervalEnded(now: Instant) -> [Action] { poll(now: now) }

    /// The gap's timer fired.
    mutating func gapEnded(now: Instant) -> [Action] {
        gapArmed = false
        return poll(now: now, heldBack: true)
    }

    /// The reread's timer fired.
    mutating func rereadDue(now: Instant) -> [Action] {
        rereadArmed = false
        return poll(now: now)
    }

    /// A read came back with `rows` rows, of which the first `decoded` were changes this server
    /// reads (a row it cannot read ends them), the last at `last`; the reader appended them to
    /// its logs, whose head is now `head`.
    mutating func readDone(rows: Int, decoded: Int, last: ChangePosition?, head: ChangePosition, now: Instant) -> [Action] {
        inFlight = false
        guard !closed else { return [] }
        if let last { readUpTo = last }
        let found = decoded > 0
        if found { rereads = 0 }
        var actions: [Action] = []
        if wroteSinceRead, head > announcedUpTo {
            wroteSinceRead = false
            announcedUpTo = head
            toAnnounce = true
            actions += announceIfDue()
        }
        // A page cut short by a row this server cannot read is not followed at once: that row
        // would come back first every time.
        let full = rows >= settings.pageSize && decoded == rows
        return actions + afterRead(full: full, found: found, now: now)
    }

    /// A read found that changes after its position were pruned before they were read (an instance
    /// pruned while this one was behind by more than the table retains): its rows are not
    /// taken, and the window is read again, as at start. The reader's logs start over there, so a
    /// reader of an older position gets a resync, never a gap.
    mutating func readPruned() -> [Action] {
        inFlight = false
        guard !closed else { return [] }
        loaded = false
        return start()
    }

    /// A read failed.
    mutating func readFailed(now: Instant) -> [Action] {
        inFlight = false
        guard !closed else { return [] }
        return afterRead(full: false, found: false, now: now)
    }

    /// The other instances were told (or the telling failed).
    mutating func announceDone() -> [Action] {
        announcing = false
        return announceIfDue()
    }

    /// The reader stops: nothing more is done.
    mutating func close() {
        closed = true
    }

    private mutating func afterRead(full: Bool, found: Bool, now: Instant) -> [Action] {
        var actions: [Action] = []
        // Not while catching up (a full page): the prune would drop changes this reader has not read.
        if !full, now - lastPrune >= settings.pruneInterval {
            lastPrune = now
            actions.append(.prune)
        }
        if full || again {
            actions += poll(now: now, catchingUp: full)
        } else if wroteSinceRead, !found {
            actions += rereadSoon()
        }
        return actions
    }

    /// A read now, when none is in flight and the gap since the last one's start has passed (or
    /// `catchingUp`: the last page was full); else one after it.
    private mutating func poll(now: Instant, catchingUp: Bool = false, heldBack: Bool = false) -> [Action] {
        guard !closed else { return [] }
        guard loaded else { return start() }
        guard !inFlight else {
            again = true
            return []
        }
        if !catchingUp, let lastRead, now - lastRead < settings.gap {
            guard !gapArmed else { return [] }
            gapArmed = true
            return [.armGap(after: settings.gap - (now - lastRead))]
        }
        lastRead = now
        inFlight = true
        again = false
        return [.readNow(after: readUpTo, heldBack: heldBack)]
    }

    /// Another read soon after one that found nothing though a change was made here.
    private mutating func rereadSoon() -> [Action] {
        guard rereads < settings.rereadLimit, !rereadArmed else { return [] }
        let first = max(settings.gap, .milliseconds(1))
        rereadArmed = true
        rereads += 1
        return [.armReread(after: first * (1 << (rereads - 1)))]
    }

    private mutating func announceIfDue() -> [Action] {
        guard toAnnounce, !announcing, !closed else { return [] }
        toAnnounce = false
        announcing = true
        return [.announce]
    }
}
