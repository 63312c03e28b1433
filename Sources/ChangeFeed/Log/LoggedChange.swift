/// What a change log keeps of a change: the domain's change (a store's `StoreChangeKind`), which
/// the log retains as a record of bytes (`PackedChanges`) and gives back exactly as it went in.
public protocol RecordedChange: Sendable, Equatable {
    /// Runs `body` on the change's record (valid inside `body` only).
    func withRecord<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R
    /// The change `record` holds (one `withRecord` gave).
    init(record: UnsafeBufferPointer<UInt8>)
}

/// One change, at its position in its log's change order.
public struct LoggedChange<Kind: RecordedChange>: Sendable, Equatable {
    public var position: ChangePosition
    public var kind: Kind

    public init(position: ChangePosition, kind: Kind) {
        self.position = position
        self.kind = kind
    }
}
