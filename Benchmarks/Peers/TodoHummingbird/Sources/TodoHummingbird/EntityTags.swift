import Foundation
import Hummingbird

/// `If-Match` and `If-None-Match` (RFC 9110 §13.1): a list of tags or `*`.
struct EntityTags {
    let tags: [Substring]?

    init(_ value: String?) {
        tags = value.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces)[...] } }
    }

    /// `If-Match`: strong comparison; no header matches.
    func ifMatch(_ tag: String) -> Bool {
        guard let tags else { return true }
        return tags.contains { $0 == "*" || $0 == tag }
    }

    /// `If-None-Match`: weak comparison (`W/` ignored); no header never matches.
    func noneMatch(_ tag: String) -> Bool {
        guard let tags else { return false }
        return tags.contains { $0 == "*" || $0 == tag || ($0.hasPrefix("W/") && $0.dropFirst(2) == tag) }
    }
}
