/// The stores' settings as they are when nobody sets them: one home for each default, which the
/// stores' initialisers and the server's configuration (`ServerConfiguration`) both start from.
public enum StoreDefaults {
    /// How many changes the live feed keeps for resuming (`eventsRetained`).
    public static let eventsRetained = 10_000
    /// How often the PostgreSQL store reads new change rows without a notification, in milliseconds.
    public static let eventsPollMilliseconds = 100
    /// The least time between two reads of the change table by the PostgreSQL store, in milliseconds.
    public static let eventsReadGapMilliseconds = 5
    /// How many waiting POSTs go to PostgreSQL in one insert.
    public static let databaseInsertBatch = 32
}
