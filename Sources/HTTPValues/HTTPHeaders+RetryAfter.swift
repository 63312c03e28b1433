extension HTTPHeaders {
    /// Sets `Retry-After` to `seconds` as delay-seconds (RFC 9110 §10.2.3: whole seconds in
    /// decimal); nothing when `seconds` is nil (whoever refused does not know when to come back).
    /// Every `Retry-After` the server writes is shaped here: the store's 503 (the presenters), the
    /// connection limit's (the screening), the live feed's subscriber limit (`FeedPresenter`).
    public mutating func setRetryAfter(seconds: Int?) {
        guard let seconds else { return }
        set("Retry-After", String(seconds))
    }
}
