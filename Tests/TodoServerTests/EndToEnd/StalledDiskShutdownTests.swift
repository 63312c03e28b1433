import Foundation
import LockTracing
import Logging
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer
@testable import TodoServerApp

/// The process's own shutdown steps (the HTTP service's drain, then the store service's close of
/// the journal, in the order the service group runs them; `TodoServerAppTests`'
/// `ProcessEndToEndTests` checks that order on the binary) while the journal's disk has stalled:
/// together they take the grace period, not the grace period each. The steps run on a thread of
/// their own, as the binary's do, without the service group, whose tasks would wait for the
/// concurrency pool that the suite's blocking tests hold. TodoServerApp's steps, tested here and
/// not in `TodoServerAppTests`: the stall needs the journal's fault seam (`WriterGate`) and the data
/// directory of `DurableTodoStoreTests`, which the TodoServer tests share.
@Suite("End to end: shutdown within the grace period while the disk stalls", .tags(.endToEnd))
struct StalledDiskShutdownTests {
    @Test("the drain and the journal's close share shutdownGraceSeconds; the stalled write is never answered as done")
    func sharedGracePeriod() throws {
        let directory = DataDirectory()
        let gate = WriterGate(operation: .sync)
        defer { gate.release() }
        let store = try directory.open(fsync: .always, faults: gate.faults)
        let storage = CapturingLogHandler.Storage()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(storage: storage) }
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.threads = 1
        configuration.shutdownGraceSeconds = 2
        let application = try TodoApplication(configuration: configuration, logger: logger, store: store)
        let deadline = ShutdownDeadline(graceSeconds: configuration.shutdownGraceSeconds)
        let http = HTTPService(application: application, logger: logger, deadline: deadline)
        let storeService = StoreService(store: store, logger: logger, deadline: deadline)
        let port = try application.start()

        gate.arm()
        let post = LockedBox<HTTPResponseSnapshot?>()
        Thread.detachNewThread {
            let client = try? TestHTTPClient(port: port, receiveTimeoutSeconds: 30)
            post.set(
                try? client?.request("POST", "/todos", headers: [("Content-Type", "application/json")], body: #"{"title":"never durable"}"#)
            )
        }
        #expect(gate.waitUntilReached())
        let measured = LockedBox<Duration>()
        Thread.detachNewThread {
            let started = ContinuousClock.now
            http.beginShutdown()
            application.waitUntilStopped()
            storeService.close()
            measured.set(ContinuousClock.now - started)
        }
        let elapsed = try #require(eventually { measured.get() })
        // The drain waits the whole 2 s for the stalled write's answer; the close gets what is left
        // (at least 0.1 s) instead of another 2 s.
        #expect(elapsed >= .milliseconds(1900), "the drain waits for the request in flight: \(elapsed)")
        // Two grace periods (the drain's and then the close's) took 4 s or more; one leaves 2 s of slack.
        #expect(elapsed < .seconds(4), "the whole shutdown is one grace period (it took two): \(elapsed)")
        let messages = storage.lines.withTracedLock { $0.map(\.message) }
        #expect(messages.contains("shutdown requested, draining"))
        #expect(messages.contains("the journal did not close within the grace period (a stalled disk); exiting without it"))
        #expect(eventually { post.get() != nil })
        #expect((post.get() ?? nil)?.status != 201, "a write that is not durable is never answered as done")
    }
}
