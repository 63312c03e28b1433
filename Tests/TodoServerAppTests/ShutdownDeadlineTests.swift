import Testing

@testable import TodoServerApp

/// The one grace period that the process's shutdown steps share (`HTTPService`'s drain, then
/// `StoreService`'s close of the store). Both steps under a stalled disk: `TodoServerTests`'
/// `StalledDiskShutdownTests`, which needs the journal's fault seam.
@Suite struct ShutdownDeadlineTests {
    @Test("the deadline: all of the grace period before the shutdown starts, what is left after, never less than the floor")
    func deadline() {
        let deadline = ShutdownDeadline(graceSeconds: 3)
        #expect(deadline.remainingSeconds == 3)
        deadline.start()
        #expect(deadline.remainingSeconds <= 3 && deadline.remainingSeconds > 2)
        let spent = ShutdownDeadline(graceSeconds: 0)
        spent.start()
        #expect(spent.remainingSeconds == ShutdownDeadline.floorSeconds)
    }
}
