import Testing

import struct ChangeFeed.ChangeCursor
import struct ChangeFeed.ChangePosition

@testable import struct ChangeFeed.PackedChanges
@testable import TodoData

/// The retained changes in compact form (issue 38, item 3): every change comes back as it went in,
/// through wrap-around, growth and shrinking of the rings, and a window costs at most 100 bytes a
/// change.
/// The store's changes, packed.
private typealias PackedChanges = ChangeFeed.PackedChanges<StoreChangeKind>

@Suite("Packed changes: exact round trips, the rings, their memory")
struct PackedChangesTests {
    static func uuid(_ number: UInt64) -> String {
        TodoID16(high: number &* 0x9E37_79B9_7F4A_7C15, low: ~number).string
    }

    static func todo(
        id: String, title: String, completed: Bool = false, order: Int? = nil, dueDate: CalendarDay? = nil,
        createdAt: Int64 = 1_765_000_000_000, updatedAt: Int64? = nil, revision: UInt64 = 1
    ) -> Todo {
        Todo(
            id: id, title: title, completed: completed, order: order, dueDate: dueDate,
            createdAt: Timestamp(millisecondsSinceEpoch: createdAt),
            updatedAt: Timestamp(millisecondsSinceEpoch: updatedAt ?? createdAt), revision: revision)
    }

    /// Changes of every kind, with the ids, titles and values a client can give or the server makes.
    static let kinds: [StoreChangeKind] = [
        .created(todo(id: uuid(1), title: "a thirty character title here!")),
        .updated(
            todo(
                id: uuid(1), title: "A Thirty Character Title Here!", completed: true, order: 3,
                dueDate: CalendarDay(year: 2026, month: 12, day: 24), updatedAt: 1_765_000_123_456, revision: 2)),
        .deleted(id: uuid(1)),
        .cleared,
        // Ids that are not lower-case UUIDs: a client's, an upper-case UUID, empty, long, not ASCII.
        .created(todo(id: "todo-1", title: "")),
        .created(todo(id: "3F2504E0-4F89-11D3-9A0C-0305E82C3301", title: "upper-case UUID")),
        .deleted(id: ""),
        .deleted(id: "3F2504E0-4F89-11D3-9A0C-0305E82C3301"),
        .updated(todo(id: String(repeating: "x", count: 300), title: "long id", order: -7, revision: 9)),
        .created(todo(id: "ü-é-日本", title: "Ünïcödé ✓ 日本語 😀", order: 0)),
        // Not in NFC: kept byte for byte.
        .created(todo(id: uuid(2), title: "e\u{301}te\u{301} Å")),
        .updated(todo(id: uuid(3), title: String(repeating: "long title ", count: 500), dueDate: CalendarDay(year: 1, month: 1, day: 1))),
        // Extremes of every number.
        .updated(
            todo(
                id: uuid(4), title: "extremes", order: .min, dueDate: CalendarDay(year: 9999, month: 12, day: 31), createdAt: .min,
                updatedAt: .max, revision: .max)),
        .updated(todo(id: uuid(5), title: "backwards", order: .max, createdAt: 1_000, updatedAt: -1_000, revision: 0)),
        .created(todo(id: uuid(6), title: "before 1970", dueDate: CalendarDay(year: 1969, month: 12, day: 31), createdAt: -86_400_001)),
    ]

    private static func excerpt(of packed: PackedChanges) -> [StoreChange] {
        var excerpt = PackedChanges.Excerpt()
        for index in 0..<packed.count { packed.copy(index, to: &excerpt) }
        return excerpt.changes()
    }

    @Test("every kind of change comes back exactly as it went in")
    func everyKindRoundTrips() throws {
        let log = ChangeLog(tag: "t", capacity: 100, start: ChangePosition(major: 1, minor: 0))
        for kind in Self.kinds { log.appendNext(kind) }
        guard case .changes(let changes, let end) = log.replay(after: ChangeCursor(after: ChangePosition(major: 1, minor: 0))) else {
            Issue.record("resync")
            return
        }
        #expect(changes.map(\.kind) == Self.kinds)
        #expect(changes.map(\.position.minor) == Array(1...UInt64(Self.kinds.count)))
        #expect(end == log.head)
        // Equal strings may differ in their bytes (`==` is canonical equivalence): these do not.
        for (change, kind) in zip(changes, Self.kinds) {
            guard case .created(let got) = change.kind, case .created(let sent) = kind else { continue }
            #expect(Array(got.title.utf8) == Array(sent.title.utf8))
            #expect(Array(got.id.utf8) == Array(sent.id.utf8))
        }
    }

    @Test("a creation with a UUID and a 30-byte title is a 55-byte record; a clearing one byte")
    func recordSizes() {
        let created = ChangeRecord.withEncoded(Self.kinds[0]) { $0.count }
        let cleared = ChangeRecord.withEncoded(.cleared) { $0.count }
        let deleted = ChangeRecord.withEncoded(.deleted(id: Self.uuid(1))) { $0.count }
        let otherDeleted = ChangeRecord.withEncoded(.deleted(id: "todo-1")) { $0.count }
        #expect([created, cleared, deleted, otherDeleted] == [55, 1, 17, 8])
    }

    @Test("the rings wrap round with room that stays the same, and every change stays exact")
    func wrapAround() {
        var packed = PackedChanges(slotLimit: 5)
        var expected: [StoreChange] = []
        var held: Set<Int> = []
        for index in 0..<200 {
            let kind = Self.kinds[index % Self.kinds.count]
            let change = StoreChange(position: ChangePosition(major: 1, minor: UInt64(index + 1)), kind: kind)
            if packed.count == 5 {
                packed.removeFirst()
                expected.removeFirst()
            }
            packed.append(position: change.position, kind: change.kind)
            packed.trim()
            expected.append(change)
            #expect(Self.excerpt(of: packed) == expected)
            if index >= 100 { held.insert(packed.heldBytes) }
        }
        #expect(packed.slotCapacity == 5)
        // Past the longest records (the 5,500-byte title), the rings wrap round: no resizing.
        let constant = [StoreChangeKind](repeating: Self.kinds[0], count: 40)
        var sizes: Set<Int> = []
        for (index, kind) in constant.enumerated() {
            packed.removeFirst()
            expected.removeFirst()
            let change = StoreChange(position: ChangePosition(major: 2, minor: UInt64(index)), kind: kind)
            packed.append(position: change.position, kind: change.kind)
            packed.trim()
            expected.append(change)
            if index >= 5 { sizes.insert(packed.heldBytes) }
        }
        #expect(Self.excerpt(of: packed) == expected)
        // The room stayed the same while 35 records of 55 bytes went through less room than that.
        #expect(sizes.count == 1)
        let room = (sizes.first ?? 0) - 5 * 24
        #expect(room >= 5 * 55 && room < 35 * 55, "\(room)")
        #expect(held.count > 1, "the long title's record grew the ring, and it shrank after")
    }

    @Test("the rings grow with the slots' doubling up to the limit, shrink to twice what they hold, and go once empty")
    func growthAndShrink() {
        var packed = PackedChanges(slotLimit: 1000)
        for index in 0..<100 {
            packed.append(position: ChangePosition(major: 1, minor: UInt64(index)), kind: Self.kinds[0])
            packed.trim()
        }
        #expect(packed.slotCapacity == 128)
        // The records' room: 128 records of the size held, and an eighth.
        #expect(packed.heldBytes == 128 * 24 + 128 * 55 * 9 / 8)
        var capacities: [Int] = []
        while packed.count > 3 {
            packed.removeFirst()
            packed.trim()
            if capacities.last != packed.slotCapacity { capacities.append(packed.slotCapacity) }
        }
        #expect(capacities == [128, 62, 30, 14, 6])
        #expect(packed.heldBytes == 6 * 24 + 6 * 55)
        #expect(Self.excerpt(of: packed).map(\.position.minor) == [97, 98, 99])
        packed.removeFirst()
        packed.removeFirst()
        packed.removeFirst()
        packed.trim()
        #expect(packed.heldBytes == 0 && packed.slotCapacity == 0)
        // Up to the limit, not past it (a window of 1,000 holds 1,000 slots, not 1,024).
        for index in 0..<1000 { packed.append(position: ChangePosition(major: 3, minor: UInt64(index)), kind: .cleared) }
        #expect(packed.slotCapacity == 1000)
        // Past it only while it holds more (an owner's log before the shared budget thins it).
        packed.append(position: ChangePosition(major: 3, minor: 1000), kind: .cleared)
        #expect(packed.slotCapacity == 1001)
    }

    @Test("replay finds the first change after a cursor by bisection across the rings' wrap")
    func replayAcrossTheWrap() throws {
        // PostgreSQL-like positions: majors jump, minors are not in order across majors.
        let log = ChangeLog(tag: "p", capacity: 7, start: ChangePosition(major: 100, minor: 0), aheadAllowance: 10_000)
        var all: [StoreChange] = []
        for index in 0..<50 {
            // Ascending minors within a major, descending across them.
            let position = ChangePosition(major: 100 + UInt64(index / 3) * 5, minor: UInt64(1_000 - index / 3 * 3 + index % 3))
            all.append(StoreChange(position: position, kind: Self.kinds[index % Self.kinds.count]))
        }
        for start in stride(from: 0, to: 50, by: 4) { log.append(Array(all[start..<min(start + 4, 50)])) }
        let retained = Array(all.suffix(7))
        #expect(log.retainedCount == 7)
        #expect(log.replay(after: ChangeCursor(after: all[41].position)) == .resync(head: log.head))
        #expect(log.replay(after: ChangeCursor(after: all[42].position)) == .changes(retained, end: log.head))
        for (offset, change) in retained.enumerated() {
            let cursor = ChangeCursor(after: change.position)
            #expect(log.replay(after: cursor) == .changes(Array(retained[(offset + 1)...]), end: log.head))
            let limited = Array(retained[(offset + 1)...].prefix(2))
            let end = limited.last.map { ChangeCursor(after: $0.position) } ?? cursor
            #expect(log.replay(after: cursor, limit: 2) == .changes(limited, end: end))
        }
        // A cursor between two retained positions (a major no change has): retained[5] and on.
        let between = ChangeCursor(after: ChangePosition(major: retained[4].position.major + 1, minor: 0))
        #expect(retained[4].position.major + 5 == retained[5].position.major)
        #expect(log.replay(after: between) == .changes(Array(retained[5...]), end: log.head))
    }

    @Test("the first change after a position, near the newest or far back, is the one a scan finds, across the wrap")
    func firstIndexMatchesAScan() {
        var packed = PackedChanges(slotLimit: 1_000)
        var positions: [ChangePosition] = []
        func add(_ minor: Int) {
            let position = ChangePosition(major: 7, minor: UInt64(minor))
            packed.append(position: position, kind: .cleared)
            positions.append(position)
        }
        // Minors 10, 13, 16, …: every position between two changes is asked for too.
        for index in 0..<1_000 { add(10 + index * 3) }
        // Then 400 leave and 400 come: the slots wrap round.
        for _ in 0..<400 {
            packed.removeFirst()
            positions.removeFirst()
        }
        for index in 1_000..<1_400 { add(10 + index * 3) }
        #expect(packed.count == 1_000)
        var wrong: [Int] = []
        for minor in 0...(10 + 1_400 * 3) {
            let position = ChangePosition(major: 7, minor: UInt64(minor))
            let scanned = positions.firstIndex { $0 > position } ?? positions.count
            if packed.firstIndex(after: position) != scanned { wrong.append(minor) }
        }
        #expect(wrong.isEmpty)
        #expect(packed.firstIndex(after: positions[998]) == 999)
        #expect(packed.firstIndex(after: positions[999]) == 1_000)
        #expect(packed.firstIndex(after: ChangePosition(major: 6, minor: 99_999)) == 0)
    }

    @Test("a reader of the newest change gets it as it was appended; once it has left, nothing is kept of it")
    func newestChangeWhole() {
        let log = ChangeLog(tag: "n", capacity: 2, start: ChangePosition(major: 1, minor: 0))
        let first = log.appendNext(Self.kinds[0])
        let second = log.appendNext(Self.kinds[10])
        // The newest alone, and with the one before it (decoded from its record).
        #expect(
            log.replay(after: ChangeCursor(after: first)) == .changes([StoreChange(position: second, kind: Self.kinds[10])], end: log.head))
        #expect(
            log.replay(after: ChangeCursor(after: ChangePosition(major: 1, minor: 0)))
                == .changes(
                    [StoreChange(position: first, kind: Self.kinds[0]), StoreChange(position: second, kind: Self.kinds[10])], end: log.head)
        )
        // A limit of one stops before the newest: the one before it is read from its record.
        #expect(
            log.replay(after: ChangeCursor(after: ChangePosition(major: 1, minor: 0)), limit: 1)
                == .changes([StoreChange(position: first, kind: Self.kinds[0])], end: ChangeCursor(after: first)))
        let third = log.appendNext(.deleted(id: Self.uuid(9)))
        #expect(
            log.replay(after: ChangeCursor(after: second))
                == .changes([StoreChange(position: third, kind: .deleted(id: Self.uuid(9)))], end: log.head))
        log.reset(to: ChangePosition(major: 2, minor: 0))
        #expect(log.replay(after: log.head) == .changes([], end: log.head))
    }

    @Test("sibling logs thinned by the shared budget keep their changes exact and give back their room")
    func siblingsThinned() {
        let first = ChangeLog(tag: "o", capacity: 10, start: ChangePosition(major: 1, minor: 0))
        let second = first.sibling(), third = first.sibling()
        let logs = [first, second, third]
        var appended: [[StoreChange]] = [[], [], []]
        for index in 0..<40 {
            let which = index < 20 ? index % 3 : (index < 30 ? 1 : 2)
            let kind = Self.kinds[index % Self.kinds.count]
            let position = logs[which].appendNext(kind)
            appended[which].append(StoreChange(position: position, kind: kind))
        }
        // The last ten appended are retained: 10 of third's (30..<40), none of first's or second's.
        #expect(logs.map(\.retainedCount) == [0, 0, 10])
        #expect(first.retainedBytes == 0 && second.retainedBytes == 0)
        let origin = ChangeCursor(after: ChangePosition(major: 1, minor: 0))
        #expect(second.replay(after: origin) == .resync(head: second.head))
        let floor = ChangeCursor(after: ChangePosition(major: 1, minor: 30))
        #expect(third.replay(after: floor) == .changes(Array(appended[2].suffix(10)), end: third.head))
        // One appended to second: third's oldest leaves, second holds one change.
        let kind = StoreChangeKind.created(Self.todo(id: Self.uuid(9), title: "a thirty character title here!"))
        let position = second.appendNext(kind)
        #expect(second.replay(after: floor) == .changes([StoreChange(position: position, kind: kind)], end: second.head))
        // One slot, and the least room for records.
        #expect(second.retainedBytes == 24 + PackedChanges.smallestRecordRoom)
        #expect(third.retainedCount == 9)
    }

    @Test("a reset lets every change and its room go, and the log goes on from the new head")
    func reset() {
        let log = ChangeLog(tag: "p", capacity: 10, start: ChangePosition(major: 1, minor: 0), aheadAllowance: 100)
        for kind in Self.kinds.prefix(5) { log.appendNext(kind) }
        #expect(log.retainedBytes > 0)
        log.reset(to: ChangePosition(major: 50, minor: 7))
        #expect(log.retainedCount == 0 && log.retainedBytes == 0)
        #expect(log.replay(after: ChangeCursor(after: ChangePosition(major: 1, minor: 3))) == .resync(head: log.head))
        let after = ChangeCursor(after: ChangePosition(major: 50, minor: 7))
        #expect(log.replay(after: after) == .changes([], end: after))
        let change = StoreChange(position: ChangePosition(major: 51, minor: 1), kind: Self.kinds[1])
        log.append([change])
        #expect(log.replay(after: after) == .changes([change], end: ChangeCursor(after: change.position)))
    }

    /// The issue's target: at most 100 bytes a retained change (as `StoreChange`s: ~766).
    @Test("a full window of creations with 30-character titles costs at most 100 bytes a change")
    func memoryPerRetainedChange() {
        let log = ChangeLog(tag: "m", capacity: 10_000, start: ChangePosition(major: 1, minor: 0))
        let title = Array("abcdefghijklmnopqrstuvwxyzABCD")
        for index in 0..<15_000 {
            let rotated = String(title[(index % 30)...] + title[..<(index % 30)])
            let time = 1_765_000_000_000 + Int64(index) * 7
            log.appendNext(.created(Self.todo(id: Self.uuid(UInt64(index)), title: rotated, createdAt: time)))
        }
        #expect(log.retainedCount == 10_000)
        #expect(log.heldCount == 10_000)
        // A 24-byte slot and a 55-byte record each, and an eighth more room for records.
        #expect(log.retainedBytes == 10_000 * 24 + 10_000 * 55 * 9 / 8)
        #expect(Double(log.retainedBytes) / 10_000 <= 100)
    }
}
