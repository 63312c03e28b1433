import PostgresLoop
import Testing

/// The pool's queue: arrival order, deadlines, expiry of the oldest first.
struct PostgresPoolQueueTests {
    let start = ContinuousClock.now

    @Test func itAnswersInArrivalOrder() {
        var queue = PostgresPoolQueue<Int>()
        #expect(queue.isEmpty && queue.first == nil && queue.nextDeadline == nil)
        for index in 0..<3 { queue.append(index, deadline: start + .seconds(index)) }
        #expect(queue.count == 3)
        #expect(queue.nextDeadline == start)
        #expect(queue.removeFirst()?.element == 0)
        #expect(queue.first?.element == 1)
        #expect(queue.first?.deadline == start + .seconds(1))
        #expect(queue.removeAll() == [1, 2])
        #expect(queue.isEmpty && queue.removeFirst() == nil)
    }

    @Test func expiryTakesTheRequestsPastTheirDeadlineOldestFirst() {
        var queue = PostgresPoolQueue<Int>()
        for index in 0..<4 { queue.append(index, deadline: start + .seconds(index)) }
        #expect(queue.removeExpired(now: start - .seconds(1)) == [])
        #expect(queue.removeExpired(now: start + .seconds(1)) == [0, 1])
        #expect(queue.nextDeadline == start + .seconds(2))
        #expect(queue.count == 2)
        #expect(queue.removeExpired(now: start + .seconds(9)) == [2, 3])
        #expect(queue.isEmpty && queue.nextDeadline == nil)
    }

    @Test func aLongRunKeepsItsOrderAcrossCompaction() {
        var queue = PostgresPoolQueue<Int>()
        var next = 0
        var taken: [Int] = []
        for round in 0..<50 {
            for _ in 0..<100 {
                queue.append(next, deadline: start + .milliseconds(next))
                next += 1
            }
            for _ in 0..<(round % 2 == 0 ? 90 : 110) { if let first = queue.removeFirst() { taken.append(first.element) } }
        }
        taken += queue.removeAll()
        #expect(taken == Array(0..<next))
    }
}
