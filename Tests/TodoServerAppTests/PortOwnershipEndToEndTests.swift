import Foundation
import Glibc
import TestSupport
import Testing

@Suite("End to end: one server per port", .tags(.endToEnd))
struct PortOwnershipEndToEndTests {
    @Test("a second todo-server on a port another one serves exits non-zero naming the address in use; the first keeps every connection")
    func secondServerRefused() throws {
        let first = try ServerProcess(arguments: ["--port", "0", "--host", "127.0.0.1", "--threads", "2"])
        let port = try first.waitForPort()
        #expect(try first.waitForLine(containing: "listening").contains("threads=2"))

        let second = try ServerProcess(arguments: ["--port", "\(port)", "--host", "127.0.0.1", "--threads", "2"])
        let status = second.waitForExit()
        #expect(status != nil && status != 0, "the second server must exit non-zero, got \(String(describing: status))")
        #expect(second.standardError.contains("cannot listen on 127.0.0.1:\(port): Address already in use"), "\(second.standardError)")
        #expect(!second.remainingOutput.contains("listening"))

        // Every connection reaches the first server (its two loops share the port): a to-do it
        // stored is in every list.
        let created = try TestHTTPClient(port: port).request("POST", "/todos", body: #"{"title":"only here"}"#)
        #expect(created.status == 201)
        for _ in 0..<20 {
            let list = try TestHTTPClient(port: port).request("GET", "/todos")
            #expect(list.status == 200)
            #expect(list.text.contains("only here"))
        }
        first.signal(SIGTERM)
        #expect(first.waitForExit() == 0)
    }
}
