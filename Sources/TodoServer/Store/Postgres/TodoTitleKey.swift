/// The case-folded form of a title that the PostgreSQL store keeps next to it (`title_key`, compared
/// byte-wise under `COLLATE "C"`): folded here, not with the database's `lower()`, whose result
/// depends on the database's collation and differs between engines. The same folding as the
/// in-memory store's title sort and search (`TitleKey`: `String.lowercased()`, then Unicode NFC), so
/// that both stores order titles and find `q=` the same way.
public enum TodoTitleKey {
    public static func fold(_ title: String) -> String {
        TitleKey.normalized(title.lowercased())
    }
}
