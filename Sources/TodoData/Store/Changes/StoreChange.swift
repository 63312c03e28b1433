import ChangeFeed

/// What changed.
public enum StoreChangeKind: Sendable, Equatable {
    /// A to-do was inserted (as stored).
    case created(Todo)
    /// A to-do's fields changed (as stored after the change).
    case updated(Todo)
    case deleted(id: String)
    /// Every to-do was removed.
    case cleared
}

/// One change to a store, at its position in the store's change order.
public typealias StoreChange = LoggedChange<StoreChangeKind>

/// A store's change log (`ChangeFeed.ChangeLog`) of the store's changes.
public typealias ChangeLog = ChangeFeed.ChangeLog<StoreChangeKind>

/// A change is retained as its record (`ChangeRecord`), and made a change again from it.
extension StoreChangeKind: RecordedChange {
    public func withRecord<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        ChangeRecord.withEncoded(self, body)
    }

    public init(record: UnsafeBufferPointer<UInt8>) {
        self = ChangeRecord.decode(record)
    }
}
