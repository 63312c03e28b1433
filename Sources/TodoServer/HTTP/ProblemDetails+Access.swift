extension ProblemDetails {
    /// 401: no bearer token, or one this server does not accept.
    public static func unauthorized(_ detail: String) -> Self {
        Self(status: 401, title: "Unauthorized", detail: detail)
    }

    /// 403: a token that may not do this (a read-only token on a write).
    public static func forbidden(_ detail: String) -> Self {
        Self(status: 403, title: "Forbidden", detail: detail)
    }
}
