import Dispatch
import EventLoops
import LockTracing
import Prometheus
import Synchronization
import TestSupport
import Testing

@testable import TodoData
@testable import TodoServer

/// Issue 35, item 3: a loop's request metrics are touched by that loop only, and that is checked
/// (`LoopAffinity`), so that a caller off the loop fails a plain test run rather than an
/// occasional ThreadSanitizer run.
@Suite("Request metrics: a loop's handles are touched on that loop only, checked")
struct RequestMetricsLoopTests {

    static func metrics(loops: Int) -> RequestMetrics {
        RequestMetrics(factory: PrometheusMetricsFactory(registry: PrometheusCollectorRegistry()), loopCount: loops)
    }

    @Test("a loop's metrics allow the loop that recorded first, and no other loop or thread")
    func allowsTheRecordingLoopOnly() throws {
        let metrics = Self.metrics(loops: 2)
        let first = try LoopThread(), second = try LoopThread()
        defer {
            first.shutdown()
            second.shutdown()
        }
        onLoop(first.loop) { metrics.record(loop: 0, route: "/todos", method: .get, status: 200, duration: .microseconds(5)) }
        onLoop(second.loop) { metrics.record(loop: 1, route: "/todos", method: .get, status: 200, duration: .microseconds(5)) }
        #expect(onLoop(first.loop) { metrics.allowsCaller(loop: 0) })
        #expect(onLoop(second.loop) { metrics.allowsCaller(loop: 1) })
        #expect(!onLoop(first.loop) { metrics.allowsCaller(loop: 1) })
        #expect(!onLoop(second.loop) { metrics.allowsCaller(loop: 0) })
        #expect(!metrics.allowsCaller(loop: 0))
        #expect(!metrics.allowsCaller(loop: 1))
    }

    #if DEBUG
        @Test("recording for a loop off that loop's thread stops a debug build at once")
        func recordingOffTheLoopTraps() async {
            await #expect(processExitsWith: .failure) {
                let metrics = RequestMetricsLoopTests.metrics(loops: 1)
                let loopThread = try! LoopThread()
                onLoop(loopThread.loop) {
                    metrics.record(loop: 0, route: "/todos", method: .get, status: 200, duration: .microseconds(5))
                }
                // The test's thread, as the in-process client's requests were: the assertion stops here.
                metrics.record(loop: 0, route: "/todos", method: .get, status: 200, duration: .microseconds(5))
            }
        }

        @Test("recording on the loop that recorded first goes on (the exit test's control)")
        func recordingOnTheLoopGoesOn() async {
            await #expect(processExitsWith: .success) {
                let metrics = RequestMetricsLoopTests.metrics(loops: 1)
                let loopThread = try! LoopThread()
                for _ in 0..<2 {
                    onLoop(loopThread.loop) {
                        metrics.record(loop: 0, route: "/todos", method: .get, status: 200, duration: .microseconds(5))
                    }
                }
                loopThread.shutdown()
            }
        }
    #endif

    @Test("the in-process client runs its requests on its own loop: loop 0's metrics are that loop's")
    func inProcessRequestsRunOnTheClientsLoop() async throws {
        let client = try InProcessClient()
        #expect(await client.request(.post, "/todos", body: #"{"title":"a"}"#).status == 201)
        #expect(await client.request(.get, "/todos/nope").status == 404)
        let metrics = client.application.pipeline.metrics
        #expect(onLoop(client.loop) { metrics.allowsCaller(loop: 0) })
        #expect(!metrics.allowsCaller(loop: 0))
    }
}
