import Glibc
import Testing

/// A pipe whose read end never blocks, for a writer under test to write into; closed by `close()`.
final class NonBlockingPipe {
    let readEnd: Int32
    let writeEnd: Int32
    private(set) var received: [UInt8] = []

    init() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        readEnd = fds[0]
        writeEnd = fds[1]
        _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
    }

    /// Reads what the pipe holds now; returns everything received so far.
    @discardableResult
    func read() -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = Glibc.read(readEnd, &chunk, chunk.count)
            guard count > 0 else { break }
            received += chunk[..<count]
        }
        return received
    }

    func close() {
        Glibc.close(readEnd)
        Glibc.close(writeEnd)
    }
}
