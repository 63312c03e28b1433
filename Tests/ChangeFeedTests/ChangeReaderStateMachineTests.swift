import Testing

@testable import ChangeFeed

/// The PostgreSQL change reader's decisions as a pure machine: events and the test's own clock in,
/// actions out; no database, no loop, no timer.
@Suite("Change reader: window, gap, one read at a time, rereads, announcements, pruning")
struct ChangeReaderStateMachineTests {
    typealias Machine = ChangeReaderStateMachine
    let t0 = ContinuousClock.now

    private func at(_ milliseconds: Int) -> ContinuousClock.Instant { t0 + .milliseconds(milliseconds) }

    private static func position(_ major: UInt64, _ minor: UInt64) -> ChangePosition {
        ChangePosition(major: major, minor: minor)
    }

    /// A machine with a gap of 5 ms whose window (at 100.1) is read, and whose first read, at
    /// `t0`, came back empty.
    private func loaded(gap: Duration = .milliseconds(5)) -> Machine {
        var machine = Machine(settings: .init(gap: gap), now: t0)
        #expect(machine.start() == [.loadWindow])
        #expect(machine.windowLoaded(start: Self.position(100, 1), now: t0) == [.readNow(after: nil, heldBack: false)])
        #expect(machine.readDone(rows: 0, decoded: 0, last: nil, head: Self.position(100, 1), now: t0) == [])
        return machine
    }

    @Test func theWindowComesFirstAndAWindowThatFailedIsAskedForAgainByTheNextEvent() {
        var machine = Machine(settings: .init(gap: .milliseconds(5)), now: t0)
        #expect(machine.start() == [.loadWindow])
        #expect(machine.start() == [], "one statement at a time")
        #expect(machine.notified(now: at(1)) == [])
        #expect(machine.windowFailed() == [])
        #expect(machine.intervalEnded(now: at(100)) == [.loadWindow])
        #expect(machine.windowLoaded(start: Self.position(7, 3), now: at(101)) == [.readNow(after: nil, heldBack: false)])
        #expect(machine.announcedUpTo == Self.position(7, 3))
    }

    @Test func readsStartAtLeastTheGapApartAndTheReadHeldBackIsOneRead() {
        var machine = loaded()
        #expect(machine.wrote(now: at(1)) == [.armGap(after: .milliseconds(4))])
        #expect(machine.wrote(now: at(2)) == [], "the gap's timer is armed already")
        #expect(machine.notified(now: at(3)) == [])
        #expect(machine.gapEnded(now: at(5)) == [.readNow(after: nil, heldBack: true)])
    }

    @Test func aChangeAfterAQuietSpellIsReadAtOnce() {
        var machine = loaded()
        #expect(machine.wrote(now: at(10)) == [.readNow(after: nil, heldBack: false)])
    }

    @Test func anAskDuringAReadBringsOneReadAfterItWithinTheGapRules() {
        var machine = loaded()
        #expect(machine.wrote(now: at(10)) == [.readNow(after: nil, heldBack: false)])
        #expect(machine.notified(now: at(11)) == [])
        #expect(machine.listening(now: at(12)) == [])
        #expect(machine.again)
        // Back 2 ms after the read started: the next waits for the rest of the gap.
        let head = Self.position(101, 2)
        #expect(
            machine.readDone(rows: 1, decoded: 1, last: head, head: head, now: at(12))
                == [.announce, .armGap(after: .milliseconds(3))])
        #expect(machine.gapEnded(now: at(15)) == [.readNow(after: head, heldBack: true)])
        // Back after the gap: the next at once.
        #expect(machine.notified(now: at(16)) == [])
        #expect(machine.readDone(rows: 0, decoded: 0, last: nil, head: head, now: at(21)) == [.readNow(after: head, heldBack: false)])
    }

    @Test func aFullPageIsFollowedAtOnceButOneCutShortByARowThisServerCannotReadIsNot() {
        var machine = loaded()
        #expect(machine.intervalEnded(now: at(100)) == [.readNow(after: nil, heldBack: false)])
        let last = Self.position(150, 1_000)
        #expect(
            machine.readDone(rows: 1_000, decoded: 1_000, last: last, head: last, now: at(101)) == [.readNow(after: last, heldBack: false)])
        let cut = Self.position(160, 1_999)
        #expect(machine.readDone(rows: 1_000, decoded: 999, last: cut, head: cut, now: at(102)) == [])
        #expect(machine.readUpTo == cut)
        #expect(machine.intervalEnded(now: at(200)) == [.readNow(after: cut, heldBack: false)], "the next read starts after the last read")
    }

    @Test func aReadThatFindsNothingAfterAWriteHereIsFollowedByRereadsEachTwiceAsLateAtMostEight() {
        var machine = loaded()
        var now = 100
        #expect(machine.wrote(now: at(now)) == [.readNow(after: nil, heldBack: false)])
        var waits: [Duration] = []
        while case .armReread(let wait)? = machine.readDone(rows: 0, decoded: 0, last: nil, head: Self.position(100, 1), now: at(now)).first
        {
            waits.append(wait)
            now += Int(wait.components.attoseconds / 1_000_000_000_000_000) + Int(wait.components.seconds) * 1_000
            #expect(machine.rereadDue(now: at(now)) == [.readNow(after: nil, heldBack: false)])
        }
        #expect(waits == [5, 10, 20, 40, 80, 160, 320, 640].map { Duration.milliseconds($0) })
        #expect(machine.rereads == 8)
        // A write here starts the count again.
        #expect(machine.wrote(now: at(now + 10)) == [.readNow(after: nil, heldBack: false)])
        #expect(machine.readFailed(now: at(now + 10)) == [.armReread(after: .milliseconds(5))], "a failed read is read again too")
    }

    @Test func withoutAGapTheFirstRereadIsAfterAMillisecond() {
        var machine = loaded(gap: .zero)
        #expect(machine.wrote(now: at(1)) == [.readNow(after: nil, heldBack: false)])
        #expect(
            machine.readDone(rows: 0, decoded: 0, last: nil, head: Self.position(100, 1), now: at(1)) == [
                .armReread(after: .milliseconds(1))
            ])
    }

    @Test func onceAReadMovedTheHeadPastAWriteHereTheOthersAreToldOneAnnouncementAtATime() {
        var machine = loaded()
        #expect(machine.wrote(now: at(10)) == [.readNow(after: nil, heldBack: false)])
        let first = Self.position(101, 2)
        #expect(machine.readDone(rows: 1, decoded: 1, last: first, head: first, now: at(11)) == [.announce])
        #expect(machine.announcedUpTo == first)
        // Another write, read while the first announcement is out: told after it.
        #expect(machine.wrote(now: at(20)) == [.readNow(after: first, heldBack: false)])
        let second = Self.position(102, 3)
        #expect(machine.readDone(rows: 1, decoded: 1, last: second, head: second, now: at(21)) == [])
        #expect(machine.toAnnounce)
        #expect(machine.announceDone() == [.announce])
        #expect(machine.announceDone() == [])
        // Changes read without a write here tell nobody.
        #expect(machine.notified(now: at(30)) == [.readNow(after: second, heldBack: false)])
        let third = Self.position(103, 4)
        #expect(machine.readDone(rows: 1, decoded: 1, last: third, head: third, now: at(31)) == [])
    }

    @Test func aWriteWhoseAskAReadTookIsToldOnceAReadMovedTheHead() {
        var machine = loaded()
        #expect(machine.notified(now: at(10)) == [.readNow(after: nil, heldBack: false)])
        machine.askTaken()
        #expect(machine.wroteSinceRead)
        let head = Self.position(101, 2)
        #expect(machine.readDone(rows: 1, decoded: 1, last: head, head: head, now: at(11)) == [.announce])
        // The ask's own `wrote` comes after the read: the head has not moved past what was told.
        #expect(machine.wrote(now: at(12)) == [.armGap(after: .milliseconds(3))])
        #expect(machine.gapEnded(now: at(15)) == [.readNow(after: head, heldBack: true)])
        #expect(machine.readDone(rows: 0, decoded: 0, last: nil, head: head, now: at(16)) == [.armReread(after: .milliseconds(5))])
    }

    @Test func theTableIsPrunedAfterAReadAtMostEveryPruneInterval() {
        var machine = loaded()
        #expect(machine.intervalEnded(now: at(9_990)) == [.readNow(after: nil, heldBack: false)])
        #expect(machine.readDone(rows: 0, decoded: 0, last: nil, head: Self.position(100, 1), now: at(9_999)) == [])
        #expect(machine.intervalEnded(now: at(10_000)) == [.readNow(after: nil, heldBack: false)])
        #expect(machine.readDone(rows: 0, decoded: 0, last: nil, head: Self.position(100, 1), now: at(10_000)) == [.prune])
        #expect(machine.intervalEnded(now: at(10_100)) == [.readNow(after: nil, heldBack: false)])
        #expect(machine.readFailed(now: at(19_999)) == [])
        #expect(machine.intervalEnded(now: at(20_000)) == [.readNow(after: nil, heldBack: false)])
        #expect(machine.readFailed(now: at(20_000)) == [.prune])
        // Not while catching up: a full page is followed at once, and the prune waits for the
        // read that comes back short (it would drop changes this reader has not read).
        let page = machine.settings.pageSize
        #expect(machine.intervalEnded(now: at(30_000)) == [.readNow(after: nil, heldBack: false)])
        let last = Self.position(300, 1)
        #expect(
            machine.readDone(rows: page, decoded: page, last: last, head: last, now: at(30_001))
                == [.readNow(after: last, heldBack: false)])
        let caughtUp = Self.position(300, 3)
        #expect(machine.readDone(rows: 2, decoded: 2, last: caughtUp, head: caughtUp, now: at(30_002)) == [.prune])
    }

    /// Another instance pruned changes this one had not read: the read's rows are not taken, the
    /// window is read again (one statement at a time, asks meanwhile wait for it), and reads go on
    /// from the new window's head, not from where the pruned read started.
    @Test func aReadThatFoundItsChangesPrunedReadsTheWindowAgainThenReadsFromItsHead() {
        var machine = loaded()
        #expect(machine.wrote(now: at(10)) == [.readNow(after: nil, heldBack: false)])
        let last = Self.position(101, 2)
        #expect(machine.readDone(rows: 1, decoded: 1, last: last, head: last, now: at(11)) == [.announce])
        #expect(machine.notified(now: at(20)) == [.readNow(after: last, heldBack: false)])
        #expect(machine.readPruned() == [.loadWindow])
        #expect(!machine.loaded)
        #expect(machine.notified(now: at(21)) == [], "the window's statement is in flight")
        // Reads still start the gap apart: the pruned read started at 20.
        #expect(machine.windowLoaded(start: Self.position(140, 7), now: at(22)) == [.armGap(after: .milliseconds(3))])
        #expect(machine.gapEnded(now: at(25)) == [.readNow(after: nil, heldBack: true)])
        #expect(machine.readUpTo == nil)
        #expect(machine.announcedUpTo == Self.position(140, 7))
    }

    @Test func aReadFoundPrunedAfterTheReaderClosedDoesNothing() {
        var machine = loaded()
        #expect(machine.wrote(now: at(10)) == [.readNow(after: nil, heldBack: false)])
        machine.close()
        #expect(machine.readPruned() == [])
        #expect(machine.loaded)
    }

    @Test func aClosedReaderDoesNothingMore() {
        var machine = loaded()
        #expect(machine.wrote(now: at(10)) == [.readNow(after: nil, heldBack: false)])
        machine.close()
        let head = Self.position(101, 2)
        #expect(machine.readDone(rows: 1, decoded: 1, last: head, head: head, now: at(11)) == [])
        #expect(machine.wrote(now: at(20)) == [])
        #expect(machine.notified(now: at(30)) == [])
        #expect(machine.start() == [])
        #expect(machine.announceDone() == [])
    }
}
