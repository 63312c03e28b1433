import Glibc

/// A file's text, read with stdio ("" when it cannot be opened): Foundation's
/// `String(contentsOfFile:)` leaks its read buffer here (LeakSanitizer: 4 KiB per call from
/// `readBytesFromFile`).
package func fileText(_ path: String) -> String {
    guard let file = fopen(path, "r") else { return "" }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count <= 0 { break }
        bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
