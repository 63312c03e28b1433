/// What a verified JSON Web Token says: whose to-dos the request acts on, until when, and whether
/// it may read and write them.
public struct VerifiedToken: Sendable, Equatable {
    /// What a token allows, from its `scope`/`scp` claims (`JWTVerifier`): a token that names no
    /// `todos:` scope reads and writes; one that names any reads with `todos:read` or
    /// `todos:write`, and writes with `todos:write`.
    public struct Grants: Sendable, Equatable, CustomStringConvertible {
        public var read: Bool
        public var write: Bool

        /// `read, write`, `read`, `write` or `none`.
        public var description: String {
            switch (read, write) {
            case (true, true): "read, write"
            case (true, false): "read"
            case (false, true): "write"
            case (false, false): "none"
            }
        }
    }

    /// The owner claim's value (`sub` by default): a valid owner name.
    public let owner: String
    /// `exp`, in whole seconds since the epoch (a fractional `exp` rounded down): a live stream
    /// opened with this token ends then. The leeway is not added.
    public let expiresAt: Int64
    public let grants: Grants
}
