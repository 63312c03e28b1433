/// The case-folded form of a title that the PostgreSQL store keeps next to it (`title_key`, compared
/// byte-wise under `COLLATE "C"`), and its NFC form (`title_nfc`, which breaks ties between titles
/// that differ only in case): computed here, not with the database's `lower()` or `normalize()`,
/// whose results depend on the database's collation and Unicode version and differ between
/// engines. The same keys as the in-memory store's title sort and search (`TitleKey`: `CaseFold`,
/// then Unicode NFC), so that both stores order titles and find `q=` the same way.
public enum TodoTitleKey {
    public static func fold(_ title: String) -> String {
        CaseFold.folded(title)
    }

    /// The title in NFC.
    public static func exact(_ title: String) -> String {
        TitleKey.normalized(title)
    }
}
