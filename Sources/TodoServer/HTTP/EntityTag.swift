/// An RFC 9110 entity tag (`"17"`, `W/"17"`), as `ETag` sends it and conditions list it.
public struct EntityTag: Sendable, Hashable, CustomStringConvertible {
    /// The opaque part, without quotes.
    public var opaque: String
    public var isWeak: Bool

    public init(_ opaque: String, isWeak: Bool = false) {
        self.opaque = opaque
        self.isWeak = isWeak
    }

    /// The strong tag of a stored revision.
    public init(revision: UInt64) {
        self.init(String(revision))
    }

    public var description: String { (isWeak ? "W/" : "") + "\"" + opaque + "\"" }
}

/// An `If-Match` or `If-None-Match` value: `*`, or a list of entity tags.
public enum EntityTagCondition: Sendable, Equatable {
    case any
    case tags([EntityTag])

    /// Parses the field value; entries that are not entity tags are skipped, so a value with none
    /// matches nothing.
    public init(_ value: String) {
        let trimmed = value.trimmingWhitespace()
        if trimmed == "*" {
            self = .any
            return
        }
        var tags: [EntityTag] = []
        for entry in trimmed.split(separator: ",") {
            var text = Substring(String(entry).trimmingWhitespace())
            let weak = text.hasPrefix("W/")
            if weak { text = text.dropFirst(2) }
            guard text.count >= 2, text.first == "\"", text.last == "\"" else { continue }
            let opaque = text.dropFirst().dropLast()
            guard !opaque.contains("\"") else { continue }
            tags.append(EntityTag(String(opaque), isWeak: weak))
        }
        self = .tags(tags)
    }

    /// `If-Match`: strong comparison, weak tags never match.
    public func matchesStrongly(_ tag: EntityTag) -> Bool {
        switch self {
        case .any: true
        case .tags(let tags): !tag.isWeak && tags.contains { !$0.isWeak && $0.opaque == tag.opaque }
        }
    }

    /// `If-None-Match`: weak comparison, only the opaque parts count.
    public func matchesWeakly(_ tag: EntityTag) -> Bool {
        switch self {
        case .any: true
        case .tags(let tags): tags.contains { $0.opaque == tag.opaque }
        }
    }
}
