import Testing

@testable import TodoServer

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
        guard case .changes(let changes) = replay else { return [] }
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
        #expect(log.replay(after: log.head) == .changes([]))
        guard case .changes(let all) = log.replay(after: ChangeCursor(after: ChangePosition(major: 1, minor: 0))) else {
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
        #expect(ChangeCursor(token: "j.7.42", tag: "j") == plain)
        #expect(ChangeCursor(token: "j.7.42", tag: "m1") == nil)
        let snapshot = TransactionSnapshot(xmin: 100, xmax: 105, inProgress: [103, 100])
        let listed = ChangeCursor(after: ChangePosition(major: 100, minor: 0), seen: snapshot)
        #expect(listed.token(tag: "p") == "p.100.0~100.105.100_103")
        #expect(ChangeCursor(token: listed.token(tag: "p"), tag: "p") == listed)
        for bad in ["", "j", "j.7", "j.7.x", "j.-1.2", "j.1.2.3", "j.1.2~", "j.1.2~5.4.", "j.1.2~1.5.9", "j.1.2~1.5.2_x"] {
            #expect(ChangeCursor(token: bad, tag: "j") == nil, "\(bad)")
        }
        #expect(ChangeCursor(token: "j." + String(repeating: "1", count: 100_000) + ".1", tag: "j") == nil)
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
        #expect(log.replay(after: ChangeCursor(after: ChangePosition(major: 500, minor: 0))) == .changes([]))
        #expect(log.replay(after: ChangeCursor(after: ChangePosition(major: 5_000, minor: 0))) == .resync(head: log.head))
    }

    @Test func observersAreWokenAfterEveryAppendUntilTheyStop() {
        let log = ChangeLog(tag: "mt", capacity: 10, start: ChangePosition(major: 1, minor: 0))
        let wakes = LockedBox<[Int]>()
        let observer = log.observe { wakes.update { ($0 ?? []) + [1] } }
        log.appendNext(.cleared)
        log.append([StoreChange(position: ChangePosition(major: 1, minor: 5), kind: .cleared)])
        log.append([StoreChange(position: ChangePosition(major: 1, minor: 5), kind: .cleared)])  // nothing new
        log.stopObserving(observer)
        log.appendNext(.cleared)
        #expect(wakes.get()?.count == 2)
    }
}
