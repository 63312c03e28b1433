import Testing

import struct ChangeFeed.ChangeCursor
import struct ChangeFeed.ChangePosition

@testable import TodoData
@testable import TodoServer

/// The in-memory store's owners: a store of their own each (records, indexes, change log), reached
/// through the shared list's store; change logs that share one position order and one retention
/// budget.
@Suite("InMemoryTodoStore: a store per owner, change logs as siblings")
struct OwnerStoresTests {
    let alice = Owner(name: "alice")!
    let bob = Owner(name: "bob")!

    private func todo(_ id: String, _ title: String) -> Todo {
        Todo(
            id: id, title: title, completed: false, order: nil, dueDate: nil, createdAt: Timestamp(millisecondsSinceEpoch: 1),
            updatedAt: Timestamp(millisecondsSinceEpoch: 1))
    }

    private func ids(_ store: any TodoStore) throws -> [String] {
        var page: TodoPage?
        store.list(TodoQuery()) { page = try? $0.get() }
        return try #require(page).items.map(\.id)
    }

    @Test("each owner's calls reach their own to-dos only; the shared list is the store itself; totals count everyone")
    func partitions() throws {
        let store = InMemoryTodoStore()
        #expect(store.owned(by: .shared) as AnyObject === store)
        #expect(store.store(of: alice) === store.store(of: alice))
        #expect(store.store(of: alice) !== store.store(of: bob))
        // Asked of an owner's store, another owner's store is still the one the shared store keeps.
        #expect(store.store(of: alice).store(of: bob) === store.store(of: bob))
        #expect(store.store(of: alice).store(of: .shared) === store)

        store.owned(by: alice).insert(todo("a1", "alice one")) { _ in }
        store.owned(by: bob).insert(todo("b1", "bob one")) { _ in }
        store.insert(todo("s1", "shared one")) { _ in }
        #expect(try ids(store.owned(by: alice)) == ["a1"])
        #expect(try ids(store.owned(by: bob)) == ["b1"])
        #expect(try ids(store) == ["s1"])

        var found: Todo?? = nil
        store.owned(by: bob).todo(id: "a1") { found = try? $0.get() }
        #expect(found == .some(nil))
        var removal: StoreRemoval?
        store.owned(by: bob).remove(id: "a1", condition: .none) { removal = try? $0.get() }
        #expect(removal == .notFound)
        var update: StoreUpdate?
        store.owned(by: bob).update(
            id: "a1", change: TodoChange(title: "taken"), condition: .none, at: Timestamp(millisecondsSinceEpoch: 2)
        ) {
            update = try? $0.get()
        }
        #expect(update == .notFound)
        store.owned(by: bob).removeAll { _ in }
        #expect(try ids(store.owned(by: alice)) == ["a1"])
        #expect(try ids(store) == ["s1"])

        var statistics: StoreStatistics?
        store.statistics { statistics = try? $0.get() }
        #expect(statistics?.count == 2)
        store.owned(by: alice).statistics { statistics = try? $0.get() }
        #expect(statistics?.count == 1)
    }

    @Test("owners' changes go to their own logs, with positions from one order: no two changes share one")
    func siblingPositions() throws {
        let store = InMemoryTodoStore()
        store.insert(todo("s1", "s")) { _ in }
        store.owned(by: alice).insert(todo("a1", "a")) { _ in }
        store.owned(by: bob).insert(todo("b1", "b")) { _ in }
        store.owned(by: alice).remove(id: "a1", condition: .none) { _ in }
        let shared = store.changes, aliceLog = store.owned(by: alice).changes, bobLog = store.owned(by: bob).changes
        #expect(aliceLog.tag == shared.tag && bobLog.tag == shared.tag)
        func minors(_ log: ChangeLog) -> [UInt64] {
            guard case .changes(let changes, _) = log.replay(after: ChangeCursor(after: ChangePosition(major: 1, minor: 0))) else {
                return []
            }
            return changes.map(\.position.minor)
        }
        #expect(minors(shared) == [1])
        #expect(minors(aliceLog) == [2, 4])
        #expect(minors(bobLog) == [3])
        // Bob's log never holds alice's changes, whatever cursor he brings.
        switch bobLog.replay(after: aliceLog.head) {
        case .resync(let head): #expect(head == bobLog.head)
        case .changes(let bobs, _): #expect(bobs.isEmpty)
        }
        guard case .changes(let fromShared, _) = bobLog.replay(after: shared.head) else {
            Issue.record("resync")
            return
        }
        #expect(fromShared.map(\.position.minor) == [3])
    }

    @Test("sibling logs keep the last `capacity` changes of all of them together, dropping the oldest first")
    func sharedRetention() throws {
        let first = ChangeLog(tag: "t", capacity: 4, start: ChangePosition(major: 1, minor: 0))
        first.appendNext(.cleared)  // 1
        let second = first.sibling()
        let third = first.sibling()
        second.appendNext(.cleared)  // 2
        third.appendNext(.cleared)  // 3
        second.appendNext(.cleared)  // 4
        #expect(first.retainedCount + second.retainedCount + third.retainedCount == 4)
        third.appendNext(.cleared)  // 5: 1 (first's) leaves
        #expect(first.retainedCount == 0)
        #expect(second.retainedCount == 2 && third.retainedCount == 2)
        first.appendNext(.cleared)  // 6: 2 (second's) leaves
        #expect(second.retainedCount == 1)
        #expect(first.retainedCount + second.retainedCount + third.retainedCount == 4)
        // A cursor from before what a log let go gets a resync; one after it replays.
        let origin = ChangeCursor(after: ChangePosition(major: 1, minor: 0))
        #expect(first.replay(after: origin) == .resync(head: first.head))
        guard case .changes(let seconds, _) = second.replay(after: ChangeCursor(after: ChangePosition(major: 1, minor: 2))) else {
            Issue.record("resync")
            return
        }
        #expect(seconds.map(\.position.minor) == [4])
        // A thousand owners' logs hold no more than the budget together.
        let many = (0..<1000).map { _ in first.sibling() }
        for log in many { log.appendNext(.cleared) }
        #expect(many.reduce(0) { $0 + $1.retainedCount } + first.retainedCount + second.retainedCount + third.retainedCount == 4)
    }

    @Test("a log the shared budget thins lets the changes that left go: at most twice what it retains, nothing once emptied")
    func thinnedLogsLetGo() throws {
        // A budget much larger than one owner's changes, as 10,000 retained for owners of 100 to-dos.
        let busy = ChangeLog(tag: "t", capacity: 1000, start: ChangePosition(major: 1, minor: 0))
        let other = busy.sibling()
        for _ in 0..<100 { busy.appendNext(.cleared) }
        // Three of busy's hundred stay: it holds at most six (it held all hundred).
        for _ in 0..<997 { other.appendNext(.cleared) }
        #expect(busy.retainedCount == 3)
        #expect(busy.heldCount <= 6, "held \(busy.heldCount)")
        let head = busy.head.after
        guard case .changes(let kept, _) = busy.replay(after: ChangeCursor(after: ChangePosition(major: 1, minor: head.minor - 3))) else {
            Issue.record("resync after the floor")
            return
        }
        #expect(kept.count == 3)
        #expect(busy.replay(after: ChangeCursor(after: ChangePosition(major: 1, minor: head.minor - 4))) == .resync(head: busy.head))
        // The other owner's changes take the whole budget: busy holds nothing.
        for _ in 0..<3 { other.appendNext(.cleared) }
        #expect(busy.retainedCount == 0)
        #expect(busy.heldCount == 0)
    }
}
