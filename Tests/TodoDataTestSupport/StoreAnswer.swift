import Dispatch
import Testing

@testable import TodoData

/// The answer of one store call, failures included, waited for at most 10 s: its completion may
/// come on another thread (the journal's sync thread). Nil, with an issue, when none came.
func storeAnswer<T>(
    _ call: (@escaping (Result<T, StoreError>) -> Void) -> Void, sourceLocation: SourceLocation = #_sourceLocation
) -> Result<T, StoreError>? {
    let semaphore = DispatchSemaphore(value: 0)
    let box = LockedBox<Result<T, StoreError>>()
    call { result in
        box.set(result)
        semaphore.signal()
    }
    #expect(semaphore.wait(timeout: .now() + 10) == .success, sourceLocation: sourceLocation)
    return box.get()
}

/// Starts `call` and answers the box its completion fills (empty until then): for a test that
/// collects answers later, where `storeAnswer` waits for one.
func pendingAnswer<T>(_ call: (@escaping (Result<T, StoreError>) -> Void) -> Void) -> LockedBox<Result<T, StoreError>> {
    let box = LockedBox<Result<T, StoreError>>()
    call { box.set($0) }
    return box
}
