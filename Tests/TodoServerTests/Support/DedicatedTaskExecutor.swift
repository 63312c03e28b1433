import Dispatch

/// A task executor on threads of its own (a concurrent dispatch queue, which adds threads as its
/// jobs block), for tasks a test runs that must not wait for a thread of the concurrency pool:
/// the suite's blocking tests may hold all of them for many seconds.
final class DedicatedTaskExecutor: TaskExecutor, @unchecked Sendable {
    private let queue = DispatchQueue(label: "todo-server.tests.dedicated-executor", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
