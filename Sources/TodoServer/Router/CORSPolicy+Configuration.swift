extension CORSPolicy {
    /// The policy `configuration` sets: origins, max age, credentials, and `Authorization` among
    /// the allowed headers when tokens are on.
    public init(configuration: ServerConfiguration) {
        self.init(
            allowedOrigin: configuration.corsOrigin, maxAgeSeconds: configuration.corsMaxAgeSeconds,
            allowCredentials: configuration.corsCredentials, allowAuthorization: configuration.requiresTokens)
    }
}
