import Testing

import struct ChangeFeed.ChangePosition

@testable import TodoData

/// The change feed's filter of changes that arrive after a later change of their to-do.
struct ChangeFilterTests {
    func change(_ position: UInt64, _ kind: StoreChangeKind) -> StoreChange {
        StoreChange(position: ChangePosition(major: position, minor: 1), kind: kind)
    }

    func todo(_ id: String, revision: UInt64, title: String) -> Todo {
        Todo(
            id: id, title: title, completed: false, order: nil, dueDate: nil,
            createdAt: Timestamp(millisecondsSinceEpoch: 1_800_000_000_000),
            updatedAt: Timestamp(millisecondsSinceEpoch: 1_800_000_000_000 + Int64(revision)), revision: revision)
    }

    @Test func anUpdateBehindALaterOneAndAnyChangeAfterADeletionAreDropped() {
        var filter = ChangeFilter()
        let read = [
            change(10, .created(todo("a", revision: 1, title: "a1"))),
            change(11, .updated(todo("a", revision: 3, title: "a3"))),
            change(12, .updated(todo("a", revision: 2, title: "a2"))),
            change(13, .updated(todo("b", revision: 7, title: "b7"))),
            change(14, .deleted(id: "b")),
            change(15, .updated(todo("b", revision: 8, title: "b8"))),
            change(16, .deleted(id: "b")),
            change(17, .cleared),
        ]
        #expect(filter.keep(read).map(\.position.major) == [10, 11, 13, 14, 17])
        // The next read remembers: a's revision 3 is the last kept.
        let next = [
            change(20, .updated(todo("a", revision: 3, title: "a3 again"))),
            change(21, .updated(todo("a", revision: 4, title: "a4"))),
            change(22, .updated(todo("b", revision: 9, title: "b9"))),
        ]
        #expect(filter.keep(next).map(\.position.major) == [21])
    }

    @Test func atItsLimitTheFilterForgetsTheToDosChangedLongestAgo() {
        var filter = ChangeFilter(limit: 4)
        func kept(_ xid: UInt64, _ id: String, _ revision: UInt64) -> Bool {
            filter.keep([change(xid, .updated(todo(id, revision: revision, title: id)))]).count == 1
        }
        for (xid, id) in [(1, "a"), (2, "b"), (3, "c"), (4, "d")] { #expect(kept(UInt64(xid), id, 5)) }
        // Four held: the two changed longest ago are forgotten, so a's older revision passes...
        #expect(kept(5, "a", 4))
        // ...and d's is still dropped.
        #expect(!kept(6, "d", 4))
    }
}
