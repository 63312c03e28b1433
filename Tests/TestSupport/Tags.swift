import Testing

extension Tag {
    /// Suites that start servers or processes and talk to them over sockets (`EndToEnd/`): the
    /// long part of the run. A quick local run skips them (README, "Testing"); CI runs everything.
    @Tag package static var endToEnd: Self
}
