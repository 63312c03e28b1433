import Foundation

/// The OpenAPI 3.1 document of the API, shipped as a package resource (`Resources/openapi.json`).
enum OpenAPIDocument {
    /// Why the document could not be read.
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    /// The document's bytes, read once at start-up.
    static func load() throws -> [UInt8] {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json") else {
            throw Missing(description: "openapi.json is missing from the TodoServer resource bundle")
        }
        return Array(try Data(contentsOf: url))
    }
}
