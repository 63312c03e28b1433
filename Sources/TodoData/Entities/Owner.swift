/// Whose to-dos a request acts on: a named owner (from an owner token or a JSON Web Token's owner
/// claim), or the shared list (plain tokens, no tokens: the to-dos from before owners existed).
/// Interned where stores keep it: a store files its to-dos by owner, never a filter over everyone's.
public struct Owner: Hashable, Sendable, CustomStringConvertible {
    /// The owner's name; empty for the shared list.
    public let name: String

    /// The shared list.
    public static let shared = Owner(unchecked: "")

    /// A named owner; nil when `name` is not 1–128 of `A-Z a-z 0-9 . _ @ -` (the contract's owner names).
    public init?(name: String) {
        guard Self.isValidName(name) else { return nil }
        self.name = name
    }

    package init(unchecked name: String) {
        self.name = name
    }

    /// Whether this is the shared list.
    public var isShared: Bool { name.isEmpty }

    public var description: String { isShared ? "(shared list)" : name }

    /// Whether `name` is a valid owner name: 1–128 bytes, each a letter, digit, `.`, `_`, `@` or `-`.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard (1...128).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "-")
            }
        }
    }
}
