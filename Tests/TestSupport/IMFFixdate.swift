import Glibc

/// The IMF-fixdate of `seconds` as the C library writes it (`gmtime_r`, then `strftime` in the C
/// locale, as evhttp's `evutil_date_rfc1123` did): what the server's own `Date` writer is checked
/// against, alone (`HTTPDateTests`) and on the wire (`OwnWireEndToEndTests`).
package func imfFixdate(_ seconds: Int) -> String {
    var time = time_t(seconds)
    var parts = tm()
    gmtime_r(&time, &parts)
    var buffer = [CChar](repeating: 0, count: 64)
    let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
