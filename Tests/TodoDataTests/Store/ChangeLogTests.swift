import Synchronization
import Testing

import struct ChangeFeed.ChangeCursor
import protocol ChangeFeed.ChangeListener
import struct ChangeFeed.ChangePosition
import struct ChangeFeed.TransactionSnapshot

@testable import TodoData

@Suite("Change log: positions, cursors, the retained window")
struct ChangeLogTests {
    private func todo(_ id: String, revision: UInt64 = 1) -> Todo {
        var todo = Todo(
            id: id, title: "t \(id)", completed: false, order: nil, dueDate: nil, createdAt: Timestamp(millisecondsSinceEpoch: 0),
            updatedAt: Timestamp(millisecondsSinceEpoch: 0))
        todo.revision = revision
        return todo
    }

    private func positions(_ replay: ChangeLog.Replay) -> [UInt64] {
        guard case .changes(let changes, _) = replay else { return [] }
        return changes.map(\.position.minor)
    }

    @Test func appendsNumberChangesInOrderAndReplayStartsAfterTheCursor() {
        let log = ChangeLog(tag: "mt", capacity: 10, start: ChangePosition(major: 1, minor: 0))
        #expect(log.headToken == "mt.1.0")
        let first = log.appendNext(.created(todo("a")))
        log.appendNext(.updated(todo("a", revision: 2)))
        log.appendNext(.deleted(id: "a"))
        log.appendNext(.cleared)
        #expect(first == ChangePosition(major: 1, minor: 1))
        #expect(log.headToken == "mt.1.4")
        #expect(positions(log.replay(after: ChangeCursor(after: first))) == [2, 3, 4])
        #expect(positions(log.replay(after: ChangeCursor(after: first), limit: 2)) == [2, 3])
        #expect(log.replay(after: log.head) == .changes([], end: log.head))
        guard case .changes(let all, _) = log.replay(after: ChangeCursor(after: ChangePosition(major: 1, minor: 0))) else {
            Issue.record("expected changes")
            return
        }
        #expect(all.map(\.kind) == [.created(todo("a")), .updated(todo("a", revision: 2)), .deleted(id: "a"), .cleared])
    }

    @Test func aCursorOlderThanTheWindowOrBeyondTheHeadGetsAResync() {
        let log = ChangeLog(tag: "mt", capacity: 3, start: ChangePosition(major: 1, minor: 0))
        for index in 1...10 { log.appendNext(.deleted(id: "\(index)")) }
        #expect(log.retainedCount == 3)
        // 7 left the window: a reader after 6 missed it.
        #expect(log.replay(after: ChangeCursor(after: ChangePosition(major: 1, minor: 6))) == .resync(head: log.head))
        #expect(positions(log.replay(after: ChangeCursor(after: ChangePosition(major: 1, minor: 7)))) == [8, 9, 10])
        #expect(log.replay(after: ChangeCursor(after: ChangePosition(major: 1, minor: 11))) == .resync(head: log.head))
        #expect(log.replay(after: ChangeCursor(after: ChangePosition(major: 2, minor: 0))) == .resync(head: log.head))
    }

    @Test func aLongRunKeepsOnlyTheWindowAndStillReplaysInOrder() {
        let log = ChangeLog(tag: "mt", capacity: 100, start: ChangePosition(major: 1, minor: 0))
        for index in 1...10_000 { log.appendNext(.deleted(id: "\(index)")) }
        #expect(log.retainedCount == 100)
        #expect(positions(log.replay(after: ChangeCursor(after: ChangePosition(major: 1, minor: 9_990)))) == Array(9_991...10_000))
    }

    @Test func tokensRoundTripAndTokensOfAnotherOrderAreUnknown() {
        let plain = ChangeCursor(after: ChangePosition(major: 7, minor: 42))
        #expect(plain.token(tag: "j") == "j.7.42")
        #expect(ChangeCursor(token: "j.7.42", tag: "j", snapshots: false) == plain)
        #expect(ChangeCursor(token: "j.7.42", tag: "j", snapshots: true) == plain)
        #expect(ChangeCursor(token: "j.7.42", tag: "m1", snapshots: false) == nil)
        #expect(ChangeCursor(token: "j.0.0", tag: "j", snapshots: false) == ChangeCursor(after: ChangePosition(major: 0, minor: 0)))
        let largest = ChangeCursor(token: "j.18446744073709551615.18446744073709551615", tag: "j", snapshots: false)
        #expect(largest == ChangeCursor(after: ChangePosition(major: .max, minor: .max)))
        let snapshot = TransactionSnapshot(xmin: 100, xmax: 105, inProgress: [103, 100])
        let listed = ChangeCursor(after: ChangePosition(major: 100, minor: 0), seen: snapshot)
        #expect(listed.token(tag: "p") == "p.100.0~100.105.100_103")
        #expect(ChangeCursor(token: listed.token(tag: "p"), tag: "p", snapshots: true) == listed)
        // A listing that saw every transaction below xmax but none in progress: an empty list.
        let none = ChangeCursor(
            after: ChangePosition(major: 100, minor: 0), seen: TransactionSnapshot(xmin: 100, xmax: 105, inProgress: []))
        #expect(none.token(tag: "p") == "p.100.0~100.105.")
        #expect(ChangeCursor(token: "p.100.0~100.105.", tag: "p", snapshots: true) == none)
        #expect(ChangeCursor(token: "j." + String(repeating: "1", count: 100_000) + ".1", tag: "j", snapshots: false) == nil)
    }

    /// Every spelling a log does not hand out is unknown (a resync), never read some other way:
    /// numbers are canonical decimal within `UInt64`, and a snapshot only on the PostgreSQL log's
    /// cursors, exactly as it writes one (issue 35).
    @Test(
        "a token in any form its log does not hand out is unknown",
        arguments: [
            // The position: three parts, canonical decimal, no wrap.
            "", "j", "j.7", "j.7.", "j..7", ".7.42", "j.7.x", "j.-1.2", "j.+1.2", "j.1.+2", "j. 1.2", "j.1.2 ", "j.01.2", "j.1.02",
            "j.00.2", "j.1.2.3", "j.1.2.", "j.18446744073709551616.1", "j.1.18446744073709551616",
            "j.99999999999999999999999.1", "j.1.0x10", "j.１.2",
            // The snapshot's form: three parts, none but the list empty, canonical numbers.
            "j.1.2~", "j.1.2~1.5", "j.1.2~1.5.2.3", "j.1.2~.5.", "j.1.2~1..", "j.1.2~01.5.", "j.1.2~1.05.", "j.1.2~+1.5.",
            "j.1.2~1.5.2_x", "j.1.2~1.5.02", "j.1.2~1.5.+2", "j.1.2~1.5._2", "j.1.2~1.5.2_", "j.1.2~1.5.2__3", "j.1.2~1.5.2,3",
            "j.1.2~1.18446744073709551616.2", "j.1.2~1.5.2~3", "j.1.2~1.5.2.",
            // Its bounds: xmin ≤ major < xmax, the list strictly ascending within [xmin, xmax).
            "j.1.2~5.4.", "j.1.2~2.5.", "j.5.2~1.5.", "j.6.2~1.5.", "j.1.2~1.1.", "j.1.2~1.5.9", "j.1.2~1.5.5", "j.2.2~2.5.1",
            "j.1.2~1.5.3_2", "j.1.2~1.5.2_2", "j.1.2~1.5.2_3_3_4",
        ])
    func malformedToken(_ token: String) {
        #expect(ChangeCursor(token: token, tag: "j", snapshots: true) == nil)
        #expect(ChangeCursor(token: token, tag: "j", snapshots: false) == nil)
    }

    @Test func aSnapshotOfAtMost4096TransactionsInProgressIsTakenOnlyByALogThatHandsOutSnapshots() throws {
        let most = (2...4097).map(String.init).joined(separator: "_")
        let memory = ChangeLog(tag: "m1", capacity: 10, start: ChangePosition(major: 1, minor: 0))
        let postgres = ChangeLog(tag: "m1", capacity: 10, start: ChangePosition(major: 1, minor: 0), handsOutSnapshots: true)
        #expect(!memory.handsOutSnapshots)
        // The issue's forged tokens: a memory (or journal) log never hands out a snapshot.
        #expect(memory.cursor(fromToken: "m1.1.0~1.5000.\(most)") == nil)
        #expect(memory.cursor(fromToken: "m1.1.0~2.3.") == nil)
        #expect(memory.cursor(fromToken: "m1.1.0") == ChangeCursor(after: ChangePosition(major: 1, minor: 0)))
        let taken = try #require(postgres.cursor(fromToken: "m1.1.0~1.5000.\(most)"))
        #expect(taken.seen?.inProgress.count == 4096)
        #expect(taken.seen?.inProgress.first == 2 && taken.seen?.inProgress.last == 4097)
        #expect(postgres.cursor(fromToken: "m1.1.0~1.5000.\(most)_4098") == nil, "4,097 in progress")
        #expect(postgres.cursor(fromToken: "m1.1.0~2.3.") == nil, "a major below xmin")
        // PostgreSQL's own text form reads the same way, from the database and from a client.
        #expect(TransactionSnapshot(postgresText: "100:105:100,103") == TransactionSnapshot(xmin: 100, xmax: 105, inProgress: [100, 103]))
        #expect(TransactionSnapshot(postgresText: "100:100:") == TransactionSnapshot(xmin: 100, xmax: 100, inProgress: []))
        for bad in [
            "100:105:103,100", "100:105:100,100", "0100:105:", "100:+105:", "100:105:,", "100:105:100,", "100:99:", "1:5:5", "1:2:3:4",
        ] {
            #expect(TransactionSnapshot(postgresText: bad) == nil, "\(bad)")
        }
        let list = (1...4097).map(String.init).joined(separator: ",")
        #expect(TransactionSnapshot(postgresText: "1:5000:\(list)") == nil)
    }

    @Test func aSnapshotSeesExactlyWhatIsBelowXmaxAndNotInProgress() {
        let inProgress = (0..<4096).map { 1_000 + UInt64($0) * 3 }
        let snapshot = TransactionSnapshot(xmin: 1_000, xmax: 20_000, inProgress: inProgress.reversed())
        let running = Set(inProgress)
        let unseen = (0..<21_000).filter { !snapshot.sees(UInt64($0)) }
        #expect(unseen == (0..<21_000).filter { $0 >= 20_000 || running.contains(UInt64($0)) })
        #expect(TransactionSnapshot(xmin: 5, xmax: 9, inProgress: []).sees(8))
        #expect(!TransactionSnapshot(xmin: 5, xmax: 9, inProgress: []).sees(9))
    }

    /// What a reader costs the log is bounded by the changes that come, not by what its cursor
    /// claims: the changes its snapshot saw are skipped once, and the cursor it reads on from is
    /// past them (issue 35: each write rescanned every retained change against the snapshot).
    @Test func changesACursorsSnapshotSawAreSkippedOnceAndTheCursorMovesPastThem() throws {
        // As the PostgreSQL log: a snapshot's xmax may be ahead of the head, within the allowance.
        let log = ChangeLog(
            tag: "p", capacity: 100, start: ChangePosition(major: 1_000, minor: 0), aheadAllowance: 10_000, handsOutSnapshots: true)
        log.append((1...50).map { StoreChange(position: ChangePosition(major: 1_000 + UInt64($0), minor: UInt64($0)), kind: .cleared) })
        // Seen: every transaction below 5,000 but 1,020 (in progress when it listed).
        let cursor = try #require(log.cursor(fromToken: "p.1000.0~1000.5000.1020"))
        guard case .changes(let found, let end) = log.replay(after: cursor) else {
            Issue.record("expected changes")
            return
        }
        #expect(found.map(\.position) == [ChangePosition(major: 1_020, minor: 20)])
        #expect(end.after == ChangePosition(major: 1_050, minor: 50))
        #expect(end.seen == cursor.seen, "kept: xmax is ahead")
        #expect(log.examinedCount == 50)
        #expect(log.replay(after: end) == .changes([], end: end))
        #expect(log.examinedCount == 50, "nothing new: nothing looked at")
        // With a limit, the end is the last change found: what is after it is looked at next time.
        guard case .changes(_, let limited) = log.replay(after: cursor, limit: 1) else {
            Issue.record("expected changes")
            return
        }
        #expect(limited.after == ChangePosition(major: 1_020, minor: 20))
    }

    @Test func aListingSnapshotHidesExactlyTheChangesItSawUntilTheCursorPassesIt() {
        // Seen: everything below 100, and 101, 102, 104; not 100 and 103 (running), nor 105 on.
        let snapshot = TransactionSnapshot(xmin: 100, xmax: 105, inProgress: [100, 103])
        var cursor = PostgresChangeFeed.cursor(ofListing: snapshot)
        let unseen = [99, 100, 101, 102, 103, 104, 105].filter { !cursor.hasSeen(ChangePosition(major: UInt64($0), minor: 1)) }
        #expect(unseen == [100, 103, 105])
        cursor.advance(to: ChangePosition(major: 103, minor: 9))
        #expect(cursor.seen != nil)
        #expect(cursor.hasSeen(ChangePosition(major: 104, minor: 1)))
        cursor.advance(to: ChangePosition(major: 105, minor: 1))
        #expect(cursor.seen == nil)
        #expect(!cursor.hasSeen(ChangePosition(major: 105, minor: 2)))
        // Nothing running: the snapshot says no more than its xmin.
        let quiet = PostgresChangeFeed.cursor(ofListing: TransactionSnapshot(xmin: 50, xmax: 50, inProgress: []))
        #expect(quiet == ChangeCursor(after: ChangePosition(major: 50, minor: 0)))
    }

    @Test func appendsDropWhatIsNotAfterTheHeadAndTakeCursorsALittleAhead() {
        let log = ChangeLog(tag: "p", capacity: 10, start: ChangePosition(major: 5, minor: 0), aheadAllowance: 1_000)
        log.append([
            StoreChange(position: ChangePosition(major: 6, minor: 1), kind: .cleared),
            StoreChange(position: ChangePosition(major: 6, minor: 1), kind: .cleared),
            StoreChange(position: ChangePosition(major: 4, minor: 1), kind: .cleared),
            StoreChange(position: ChangePosition(major: 9, minor: 3), kind: .cleared),
        ])
        #expect(log.retainedCount == 2)
        let ahead = ChangeCursor(after: ChangePosition(major: 500, minor: 0))
        #expect(log.replay(after: ahead) == .changes([], end: ahead))
        #expect(log.replay(after: ChangeCursor(after: ChangePosition(major: 5_000, minor: 0))) == .resync(head: log.head))
        // A snapshot's xmax is bound the same way (a hostile tester's `p.M.0~M.18446744073709551615.`
        // saw every later change, so its stream stayed silent): past the allowance it is a resync.
        let seenFar = ChangeCursor(
            after: ChangePosition(major: 9, minor: 3), seen: TransactionSnapshot(xmin: 9, xmax: .max, inProgress: []))
        #expect(log.replay(after: seenFar) == .resync(head: log.head))
        let seenNear = ChangeCursor(
            after: ChangePosition(major: 9, minor: 3), seen: TransactionSnapshot(xmin: 9, xmax: 1_009, inProgress: []))
        #expect(log.replay(after: seenNear) == .changes([], end: seenNear))
        let seenPast = ChangeCursor(
            after: ChangePosition(major: 9, minor: 3), seen: TransactionSnapshot(xmin: 9, xmax: 1_011, inProgress: []))
        #expect(log.replay(after: seenPast) == .resync(head: log.head))
    }

    /// Counts the announcements it hears.
    final class CountingListener: ChangeListener {
        let heard = Atomic<Int>(0)
        func changesAppended() { heard.add(1, ordering: .relaxed) }
    }

    @Test func listenersAreToldAfterEveryAppendUntilTheyStop() {
        let log = ChangeLog(tag: "mt", capacity: 10, start: ChangePosition(major: 1, minor: 0))
        let listener = CountingListener()
        log.listen(listener)
        log.appendNext(.cleared)
        log.append([StoreChange(position: ChangePosition(major: 1, minor: 5), kind: .cleared)])
        log.append([StoreChange(position: ChangePosition(major: 1, minor: 5), kind: .cleared)])  // nothing new
        log.stopListening(listener)
        log.appendNext(.cleared)
        #expect(listener.heard.load(ordering: .relaxed) == 2)
    }

    /// A store appends under its own lock: the listeners hear of it only when the store makes the
    /// announcement the append answered (once it let go of its lock), never during the append.
    @Test func anUnannouncedAppendTellsTheListenersOnlyWhenItsAnnouncementIsMade() {
        let log = ChangeLog(tag: "mt", capacity: 10, start: ChangePosition(major: 1, minor: 0))
        let listener = CountingListener()
        log.listen(listener)
        let (position, announcement) = log.appendNextUnannounced(.cleared)
        #expect(position == ChangePosition(major: 1, minor: 1))
        let more = log.appendUnannounced([StoreChange(position: ChangePosition(major: 1, minor: 5), kind: .cleared)])
        let nothingNew = log.appendUnannounced([StoreChange(position: ChangePosition(major: 1, minor: 5), kind: .cleared)])
        #expect(listener.heard.load(ordering: .relaxed) == 0)
        #expect(log.head.after == ChangePosition(major: 1, minor: 5))
        announcement.announce()
        more.announce()
        nothingNew.announce()
        #expect(listener.heard.load(ordering: .relaxed) == 2)
    }

    /// The log holds its listeners weakly: one that is gone is told nothing and not counted.
    @Test func aListenerThatIsGoneIsForgotten() {
        let log = ChangeLog(tag: "mt", capacity: 10, start: ChangePosition(major: 1, minor: 0))
        var listener: CountingListener? = CountingListener()
        log.listen(listener!)
        #expect(log.listenerCount == 1)
        listener = nil
        #expect(log.listenerCount == 0)
        log.appendNext(.cleared)
    }
}

extension ChangeLogTests {
    /// PostgreSQL's owners' logs: an owner whose last change is old takes a cursor as far ahead of
    /// the newest position any sibling read as the allowance lets, not of its own last change (a
    /// listing's cursor is the database's newest position, whoever changed what).
    @Test("a sibling measures how far ahead a cursor may be from the newest position of all siblings")
    func aheadOfTheNewestSibling() {
        let shared = ChangeLog(
            tag: "p", capacity: 10, start: ChangePosition(major: 0, minor: 0), aheadAllowance: 100, handsOutSnapshots: true)
        let quiet = shared.sibling()
        quiet.append([StoreChange(position: ChangePosition(major: 10, minor: 1), kind: .cleared)])
        shared.append([StoreChange(position: ChangePosition(major: 1_000, minor: 2), kind: .cleared)])
        let recent = ChangeCursor(after: ChangePosition(major: 1_050, minor: 0))
        #expect(quiet.replay(after: recent) == .changes([], end: recent))
        #expect(quiet.replay(after: ChangeCursor(after: ChangePosition(major: 1_200, minor: 0))) == .resync(head: quiet.head))
        // Alone, a log measures from its own head, as before.
        let alone = ChangeLog(tag: "p", capacity: 10, start: ChangePosition(major: 0, minor: 0), aheadAllowance: 100)
        alone.append([StoreChange(position: ChangePosition(major: 10, minor: 1), kind: .cleared)])
        #expect(alone.replay(after: recent) == .resync(head: alone.head))
    }

    /// The PostgreSQL reader reads its window again after a prune: every log and their shared
    /// budget start over, so the changes read next are all retained (before, the budget still
    /// counted the changes gone and pushed the new ones out), and each log's listeners hear of it.
    @Test func logsResetWithTheirBudgetRetainWhatComesNextAndTellTheirListeners() {
        let shared = ChangeLog(tag: "p", capacity: 3, start: ChangePosition(major: 0, minor: 0), handsOutSnapshots: true)
        let owner = shared.sibling()
        let listener = CountingListener()
        owner.listen(listener)
        shared.append([StoreChange(position: ChangePosition(major: 10, minor: 1), kind: .cleared)])
        owner.append([StoreChange(position: ChangePosition(major: 10, minor: 2), kind: .cleared)])
        shared.append([StoreChange(position: ChangePosition(major: 10, minor: 3), kind: .cleared)])
        #expect(listener.heard.load(ordering: .relaxed) == 1)
        let start = ChangePosition(major: 20, minor: 5)
        let announcements = [shared.reset(to: start), owner.reset(to: start)]
        shared.resetRetention()
        #expect(listener.heard.load(ordering: .relaxed) == 1, "told when the announcement is made")
        for announcement in announcements { announcement.announce() }
        #expect(listener.heard.load(ordering: .relaxed) == 2)
        let old = ChangeCursor(after: ChangePosition(major: 10, minor: 2))
        #expect(owner.replay(after: old) == .resync(head: owner.head))
        owner.append([StoreChange(position: ChangePosition(major: 21, minor: 6), kind: .cleared)])
        shared.append([StoreChange(position: ChangePosition(major: 21, minor: 7), kind: .cleared)])
        owner.append([StoreChange(position: ChangePosition(major: 21, minor: 8), kind: .cleared)])
        #expect(owner.retainedCount == 2)
        #expect(shared.retainedCount == 1)
        #expect(positions(owner.replay(after: ChangeCursor(after: start))) == [6, 8])
        #expect(positions(shared.replay(after: ChangeCursor(after: start))) == [7])
        // A fourth pushes out the oldest of the three, whichever log holds it.
        shared.append([StoreChange(position: ChangePosition(major: 21, minor: 9), kind: .cleared)])
        #expect(positions(owner.replay(after: ChangeCursor(after: start))) == [])
        #expect(owner.replay(after: ChangeCursor(after: start)) == .resync(head: owner.head))
    }
}
