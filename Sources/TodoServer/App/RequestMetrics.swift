import CoreMetrics
import EventLoops
import HTTPValues

/// Counts requests by route template, method and status, and times them, through swift-metrics.
///
/// Each loop records into its own cache of metric handles and its own duration histogram (label
/// `loop`), so the request path never takes a lock that another loop holds: counters are atomics,
/// and a loop's histogram lock is only ever taken by that loop (and a scrape).
public final class RequestMetrics: Sendable {
    static let requestsLabel = "http_requests_total"
    static let durationLabel = "http_request_duration_seconds"

    private let loops: [LoopMetrics]

    public init(factory: any MetricsFactory, loopCount: Int) {
        loops = (0..<max(1, loopCount)).map { LoopMetrics(index: $0, factory: factory) }
    }

    /// Records one answered request; call it on the loop thread `loop` (checked in debug builds:
    /// `LoopMetrics`).
    public func record(loop: Int, route: String, method: HTTPMethod, status: Int, duration: Duration) {
        loops[loop % loops.count].record(route: route, method: method, status: status, duration: duration)
    }

    /// Whether the calling thread may record for `loop`, as `record` asserts: it is the loop that
    /// recorded for it first (or becomes it, when none has yet).
    func allowsCaller(loop: Int) -> Bool {
        loops[loop % loops.count].affinity.allowsCaller()
    }
}

/// One loop's metric handles. Only its loop thread touches the cache: its `affinity` checks that,
/// in debug builds on every record, so that a caller off the loop (or recording for another loop's
/// number) fails a plain test run at once, not a ThreadSanitizer run now and then.
///
/// The handles a loop used last are found by comparison in a short list before the dictionary:
/// route templates are the route table's strings (equal by identity), so a hit costs a few integer
/// compares instead of hashing the template.
private final class LoopMetrics: @unchecked Sendable {
    private struct Key: Hashable {
        let route: String
        let method: HTTPMethod
        let status: Int
    }

    /// How many handles the list keeps: more than the route, method and status combinations of
    /// steady traffic.
    private static let recentCapacity = 16

    private let index: Int
    private let factory: any MetricsFactory
    let affinity = LoopAffinity()
    private let timer: CoreMetrics.Timer
    private var recent: [(key: Key, counter: Counter)] = []
    private var counters: [Key: Counter] = [:]

    init(index: Int, factory: any MetricsFactory) {
        self.index = index
        self.factory = factory
        timer = CoreMetrics.Timer(label: RequestMetrics.durationLabel, dimensions: [("loop", String(index))], factory: factory)
        recent.reserveCapacity(Self.recentCapacity)
    }

    func record(route: String, method: HTTPMethod, status: Int, duration: Duration) {
        assert(
            affinity.allowsCaller(),
            "loop \(index)'s request metrics touched off loop \(index)'s thread: \(method.rawValue) \(route) \(status)")
        counter(route: route, method: method, status: status).increment()
        timer.recordNanoseconds(duration.wholeNanoseconds)
    }

    private func counter(route: String, method: HTTPMethod, status: Int) -> Counter {
        let found = recent.withUnsafeBufferPointer { entries -> Counter? in
            for index in entries.indices {
                let key = entries[index].key
                if key.status == status, key.method == method, key.route == route { return entries[index].counter }
            }
            return nil
        }
        if let found { return found }
        let key = Key(route: route, method: method, status: status)
        let counter =
            counters[key]
            ?? {
                let made = Counter(
                    label: RequestMetrics.requestsLabel,
                    dimensions: [("route", route), ("method", method.rawValue), ("status", String(status))], factory: factory)
                counters[key] = made
                return made
            }()
        // The oldest out when full: the list follows what the loop answers now.
        if recent.count == Self.recentCapacity { recent.removeFirst() }
        recent.append((key: key, counter: counter))
        return counter
    }
}
