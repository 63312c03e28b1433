import TestSupport
import Testing

@testable import PostgresLoop

/// The batching machine alone: no loop, no database, instants made up.
@Suite struct PostgresBatchStateMachineTests {
    typealias Machine = PostgresBatchStateMachine<Int>
    let start = ContinuousClock.now

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    static func sent(_ action: Machine.Action) -> [Int]? {
        if case .send(let batch) = action { return batch.requests }
        return nil
    }

    @Test func requestsGoAloneWhileFewerThanTheLimitAreInFlight() {
        var machine = Machine(maxInFlight: 2, maxBatch: 8)
        #expect(Self.sent(machine.enqueue(1, deadline: at(100))) == [1])
        #expect(Self.sent(machine.enqueue(2, deadline: at(100))) == [2])
        #expect(machine.inFlight == 2)
        #expect(Self.sent(machine.enqueue(3, deadline: at(100))) == nil)
        #expect(machine.waitingCount == 1)
    }

    @Test func thoseThatWaitedGoTogetherWhenABatchIsAnsweredOldestFirstUpToTheMaximum() {
        var machine = Machine(maxInFlight: 1, maxBatch: 3)
        #expect(Self.sent(machine.enqueue(0, deadline: at(1000))) == [0])
        for request in 1...7 { #expect(Self.sent(machine.enqueue(request, deadline: at(1000 + request))) == nil) }
        let first = machine.batchDone(now: at(10))
        #expect(first.expired.isEmpty)
        guard case .send(let batch) = first.action else {
            Issue.record("expected a batch")
            return
        }
        #expect(batch.requests == [1, 2, 3])
        #expect(batch.deadline == at(1001), "the earliest deadline of the batch")
        #expect(Self.sent(machine.batchDone(now: at(20)).action) == [4, 5, 6])
        #expect(Self.sent(machine.batchDone(now: at(30)).action) == [7])
        #expect(machine.inFlight == 1)
        let last = machine.batchDone(now: at(40))
        #expect(Self.sent(last.action) == nil)
        #expect(machine.inFlight == 0 && machine.waitingCount == 0)
        #expect(Self.sent(machine.enqueue(8, deadline: at(2000))) == [8], "a quiet machine sends at once again")
    }

    @Test func aRequestWhoseDeadlinePassedWhileItWaitedIsHandedBackUnsentAndDoesNotCountTowardsTheBatch() {
        var machine = Machine(maxInFlight: 1, maxBatch: 2)
        _ = machine.enqueue(0, deadline: at(1000))
        _ = machine.enqueue(1, deadline: at(50))
        _ = machine.enqueue(2, deadline: at(60))
        _ = machine.enqueue(3, deadline: at(500))
        _ = machine.enqueue(4, deadline: at(600))
        _ = machine.enqueue(5, deadline: at(700))
        let step = machine.batchDone(now: at(60))
        #expect(step.expired == [1, 2], "a deadline equal to now has passed")
        #expect(Self.sent(step.action) == [3, 4])
        let late = machine.batchDone(now: at(800))
        #expect(late.expired == [5])
        #expect(Self.sent(late.action) == nil)
        #expect(machine.inFlight == 0)
    }

    @Test func removingTheWaitingOnesHandsThemBackInOrder() {
        var machine = Machine(maxInFlight: 1, maxBatch: 2)
        _ = machine.enqueue(0, deadline: at(1000))
        for request in 1...5 { _ = machine.enqueue(request, deadline: at(1000)) }
        _ = machine.batchDone(now: at(1))
        #expect(machine.removeWaiting() == [3, 4, 5])
        #expect(machine.waitingCount == 0)
        #expect(Self.sent(machine.batchDone(now: at(2)).action) == nil)
    }

    /// Many rounds of random arrivals and answers (seed printed): every request is sent exactly
    /// once or handed back expired, in arrival order, never more than the limits allow.
    @Test func randomArrivalsAndAnswersKeepEveryRequestOnceAndInOrder() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("PostgresBatchStateMachineTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        var machine = Machine(maxInFlight: 1 + Int(random.next() % 3), maxBatch: 1 + Int(random.next() % 5))
        var next = 0
        var now = 0
        var inFlight: [[Int]] = []
        var handled: [Int] = []
        /// The newest request taken from the queue: each step takes only newer ones.
        var highest = -1
        func taken(_ requests: [Int]) {
            #expect(requests.allSatisfy { $0 > highest }, "seed \(seed)")
            highest = max(highest, requests.max() ?? highest)
        }
        for _ in 0..<5_000 {
            now += Int(random.next() % 3)
            if random.next() % 2 == 0 || inFlight.isEmpty {
                if let batch = Self.sent(machine.enqueue(next, deadline: at(now + Int(random.next() % 40)))) {
                    taken(batch)
                    inFlight.append(batch)
                }
                next += 1
            } else {
                let index = Int(random.next() % UInt64(inFlight.count))
                handled += inFlight.remove(at: index)
                let step = machine.batchDone(now: at(now))
                handled += step.expired
                taken(step.expired + (Self.sent(step.action) ?? []))
                if let batch = Self.sent(step.action) {
                    #expect(batch.count <= machine.maxBatch)
                    inFlight.append(batch)
                }
            }
            #expect(inFlight.count == machine.inFlight && machine.inFlight <= machine.maxInFlight)
            #expect(machine.waitingCount == 0 || machine.inFlight == machine.maxInFlight)
        }
        handled += inFlight.flatMap { $0 } + machine.removeWaiting()
        #expect(handled.sorted() == Array(0..<next), "seed \(seed)")
    }
}
