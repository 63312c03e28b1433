import Testing

/// The tags of the long part of the run. `scripts/test.sh --quick` skips every suite that carries
/// one (README, "Testing"); `scripts/test.sh` and CI run everything. Put them on a `@Suite`, never
/// on a single `@Test`: the quick run skips whole suites (Swift 6.3's `--skip` matches names, not
/// tags, so the script finds the tagged suites in the sources and skips them by name).
extension Tag {
    /// Suites that start servers or processes and talk to them over sockets.
    @Tag package static var endToEnd: Self

    /// Suites that need the throwaway PostgreSQL cluster (`PostgresTestCluster`), for some or all
    /// of their tests: starting it and the statements take most of the unit tests' time.
    @Tag package static var postgres: Self

    /// Suites whose tests are one thread's computation (no loop, thread, task or lock: parsers,
    /// writers, indexes against their references): ThreadSanitizer has nothing to find in them, so
    /// `scripts/sanitizers.sh thread` skips them; they run everywhere else, AddressSanitizer too.
    @Tag package static var singleThreaded: Self
}
