import LockTracing
import Synchronization

/// The zones requests name (`?tz=`), read from zoneinfo once each: ICU kept the zones it loaded,
/// and without it every request naming a zone opened, read and parsed its file again. Up to
/// `capacity` zones are kept; names that are no zone are not (a client sending random names costs
/// a failed open each, never memory), nor zones past the capacity (read each time).
public final class TimeZoneDirectory: Sendable {
    private let directory: String
    private let capacity: Int
    private let zones = Mutex<[String: IANATimeZone]>([:])

    /// The IANA database has ~600 names; 128 covers every zone a real population of clients uses.
    public init(directory: String = IANATimeZone.systemDirectory, capacity: Int = 128) {
        self.directory = directory
        self.capacity = capacity
    }

    /// The zone named `identifier`, or nil when there is none of that name.
    public func zone(named identifier: String) -> IANATimeZone? {
        if let kept = zones.withTracedLock({ $0[identifier] }) { return kept }
        guard let zone = IANATimeZone(identifier: identifier, directory: directory) else { return nil }
        zones.withTracedLock { zones in
            if zones.count < capacity { zones[identifier] = zone }
        }
        return zone
    }

    /// Zones kept so far.
    public var count: Int { zones.withTracedLock { $0.count } }
}
