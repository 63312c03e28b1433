import Testing

@testable import EventHTTP

@Suite("ConnectionBudget: when a connection may read")
struct ConnectionBudgetTests {
    private func events(heads: Int, messages: Int) -> FramingEvents {
        var events = FramingEvents()
        events.headsCompleted = heads
        events.messagesCompleted = messages
        return events
    }

    @Test("reading stops at the pipelining limit and resumes as answers go out")
    func pipelining() {
        var budget = ConnectionBudget(maxPipelinedRequests: 2, maxOutputBytes: 100)
        #expect(budget.allowsReading)
        budget.record(events(heads: 2, messages: 1))
        #expect(budget.pipelined == 1)
        #expect(budget.allowsReading)
        budget.record(events(heads: 0, messages: 1))
        #expect(budget.pipelined == 2)
        #expect(!budget.allowsReading)
        budget.recordAnswer()
        #expect(budget.pipelined == 1)
        #expect(budget.allowsReading)
    }

    @Test("reading stops while unsent answer bytes exceed the limit (the limit itself still reads)")
    func output() {
        var budget = ConnectionBudget(maxPipelinedRequests: 8, maxOutputBytes: 100)
        budget.outputBytes = 100
        #expect(budget.allowsReading)
        budget.outputBytes = 101
        #expect(!budget.allowsReading)
        budget.outputBytes = 0
        #expect(budget.allowsReading)
    }

    @Test("a head not answered yet is awaited by a drain, until answered or the stream is finished")
    func awaitsAnswer() {
        var budget = ConnectionBudget(maxPipelinedRequests: 8, maxOutputBytes: 100)
        #expect(!budget.awaitsAnswer)
        budget.record(events(heads: 1, messages: 0))
        #expect(budget.awaitsAnswer, "the head has arrived, the body not yet")
        budget.record(events(heads: 0, messages: 1))
        budget.recordAnswer()
        #expect(!budget.awaitsAnswer)
        budget.record(events(heads: 1, messages: 1))
        budget.finished = true
        #expect(!budget.awaitsAnswer)
        #expect(!budget.allowsReading)
    }
}

@Suite("WireStatistics: the loops' counters summed")
struct WireStatisticsTests {
    @Test("heads, refusals and throttled connections add up; the largest input is the maximum, never lowered")
    func sum() {
        let first = WireCounters(), second = WireCounters()
        first.requestHeads.store(3, ordering: .relaxed)
        second.requestHeads.store(4, ordering: .relaxed)
        first.refusedStreams.store(1, ordering: .relaxed)
        second.throttledConnections.store(2, ordering: .relaxed)
        first.noteInput(500)
        first.noteInput(200)
        second.noteInput(700)
        #expect(first.largestInputBytes.load(ordering: .relaxed) == 500)
        #expect(
            WireCounters.sum([first, second])
                == WireStatistics(
                    requestHeads: 7, refusedStreams: 1, largestInputBytes: 700, throttledConnections: 2))
        #expect(WireCounters.sum([]) == .zero)
        #expect(WireStatistics.zero == WireStatistics(requestHeads: 0, refusedStreams: 0, largestInputBytes: 0, throttledConnections: 0))
    }
}
