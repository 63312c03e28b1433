import Dispatch

@testable import TodoData

extension TodoStore {
    /// The number of to-dos from `statistics`, waited for (at most 10 s); -1 if it fails.
    var count: Int {
        let answered = DispatchSemaphore(value: 0)
        let box = LockedBox<Int>()
        statistics { result in
            box.set((try? result.get().count) ?? -1)
            answered.signal()
        }
        _ = answered.wait(timeout: .now() + 10)
        return box.get() ?? -1
    }
}
