#if canImport(Glibc)
import Glibc
#endif

extension Todo {
    /// Whether the writable fields (title, completed, order, dueDate) hold the same values, the
    /// title byte for byte: a change that leaves them so changes nothing.
    func hasSameContent(as other: Todo) -> Bool {
        completed == other.completed && order == other.order && dueDate == other.dueDate
            && Self.sameBytes(title, other.title)
    }

    /// Byte equality (not `==`, which compares canonical equivalence): one `memcmp` over the two
    /// strings' storage, and none when they share it (a change without a title keeps the stored
    /// one). `elementsEqual` on the UTF8 views cost ~1k instructions for a 30-byte title.
    private static func sameBytes(_ first: String, _ second: String) -> Bool {
        let compared = first.utf8.withContiguousStorageIfAvailable { a in
            second.utf8.withContiguousStorageIfAvailable { b in
                a.count == b.count && (a.baseAddress == b.baseAddress || a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
            }
        }
        return (compared ?? nil) ?? first.utf8.elementsEqual(second.utf8)
    }
}
