import TestSupport

/// `eventually` (TestSupport) for a condition that awaits, such as a request in process
/// (`TestServer`): checked until it holds or `timeout` passes, pausing `interval` between checks.
func eventuallyAsync(
    timeout: Duration = .seconds(20), interval: Duration = .milliseconds(10), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: interval)
    }
}
