import ServiceLifecycle

/// A service is named by its type in ServiceLifecycle's logs (`HTTPService`, `StoreService`).
extension CustomStringConvertible where Self: Service {
    var description: String { String(describing: Self.self) }
}
