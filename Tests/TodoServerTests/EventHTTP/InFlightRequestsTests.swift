import Testing
@testable import EventHTTP

@Suite("InFlightRequests: what a drain waits for")
struct InFlightRequestsTests {
    private func pointer(_ value: Int) -> OpaquePointer { OpaquePointer(bitPattern: value)! }

    @Test("a completed request leaves; a closed connection takes its unfinished requests with it, and only those")
    func bookkeeping() {
        let requests = InFlightRequests()
        let (first, second) = (pointer(0x1000), pointer(0x2000))
        requests.began(pointer(0x10), on: first)
        requests.began(pointer(0x20), on: first)
        requests.began(pointer(0x30), on: second)
        #expect(requests.count == 3)
        requests.completed(pointer(0x20))
        #expect(requests.count == 2)
        #expect(requests.connectionClosed(first) == 1)
        #expect(requests.count == 1)
        #expect(!requests.isEmpty)
        // Completing a request already gone with its connection changes nothing.
        requests.completed(pointer(0x10))
        #expect(requests.count == 1)
        requests.completed(pointer(0x30))
        #expect(requests.isEmpty)
        #expect(requests.count == 0)
        #expect(requests.connectionClosed(second) == 0)
    }
}
