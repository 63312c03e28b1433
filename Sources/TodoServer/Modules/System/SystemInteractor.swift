/// Reports the service's identity and health from the store it serves.
public struct SystemInteractor: SystemUseCases {
    /// The version this build reports.
    public static let version = "0.1.0"

    private let store: any TodoStore

    public init(store: any TodoStore) {
        self.store = store
    }

    public func serviceInfo() -> ServiceInfo {
        ServiceInfo(
            name: "TodoServer", version: Self.version,
            routes: [("self", "/"), ("todos", "/todos"), ("upcoming", "/todos/upcoming"), ("health", "/healthz")])
    }

    public func health() -> HealthData {
        HealthData(healthy: true, todoCount: store.count)
    }
}
