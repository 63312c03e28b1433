/// Figures about the whole store.
public struct StoreStatistics: Sendable, Equatable {
    /// How many to-dos it holds.
    public var count: Int

    public init(count: Int) {
        self.count = count
    }
}
