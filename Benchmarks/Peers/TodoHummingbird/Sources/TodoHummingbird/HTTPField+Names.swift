import HTTPTypes

/// Header fields of the contract that swift-http-types does not name.
extension HTTPField.Name {
    static let requestID = Self("X-Request-ID")!
    static let totalCount = Self("X-Total-Count")!
    static let link = Self("Link")!
}
