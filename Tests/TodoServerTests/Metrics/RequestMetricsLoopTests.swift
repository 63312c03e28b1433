import Dispatch
import EventLoops
import LockTracing
import Prometheus
import Synchronization
import Testing

@testable import TodoServer

/// Issue 35, item 3: a loop's request metrics are touched by that loop only, and that is checked
/// (`LoopAffinity`), so that a caller off the loop fails a plain test run rather than an
/// occasional ThreadSanitizer run.
@Suite("Request metrics: a loop's handles are touched on that loop only, checked")
struct RequestMetricsLoopTests {
    /// `body`'s answer, computed on `loop`'s thread.
    static func onLoop<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () -> T) -> T {
        let answer = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            answer.withTracedLock { $0 = body() }
            done.signal()
        }
        done.wait()
        return answer.withTracedLock { $0! }
    }

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
        Self.onLoop(first.loop) { metrics.record(loop: 0, route: "/todos", method: .get, status: 200, duration: .microseconds(5)) }
        Self.onLoop(second.loop) { metrics.record(loop: 1, route: "/todos", method: .get, status: 200, duration: .microseconds(5)) }
        #expect(Self.onLoop(first.loop) { metrics.allowsCaller(loop: 0) })
        #expect(Self.onLoop(second.loop) { metrics.allowsCaller(loop: 1) })
        #expect(!Self.onLoop(first.loop) { metrics.allowsCaller(loop: 1) })
        #expect(!Self.onLoop(second.loop) { metrics.allowsCaller(loop: 0) })
        #expect(!metrics.allowsCaller(loop: 0))
        #expect(!metrics.allowsCaller(loop: 1))
    }

    #if DEBUG
        @Test("recording for a loop off that loop's thread stops a debug build at once")
        func recordingOffTheLoopTraps() async {
            await #expect(processExitsWith: .failure) {
                let metrics = RequestMetricsLoopTests.metrics(loops: 1)
                let loopThread = try! LoopThread()
                RequestMetricsLoopTests.onLoop(loopThread.loop) {
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
                    RequestMetricsLoopTests.onLoop(loopThread.loop) {
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
        #expect(Self.onLoop(client.loop) { metrics.allowsCaller(loop: 0) })
        #expect(!metrics.allowsCaller(loop: 0))
    }
}
