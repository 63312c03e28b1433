/// The OpenAPI 3.1 document of the API (`Resources/openapi.json`), embedded in the binary by the
/// build (`.embedInCode`): no resource bundle to find at run time, and no Foundation `Bundle`.
enum OpenAPIDocument {
    /// The document's bytes.
    static func load() -> [UInt8] {
        PackageResources.openapi_json
    }
}
