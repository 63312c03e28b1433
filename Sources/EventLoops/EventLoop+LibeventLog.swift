import CLibevent
import Glibc

extension EventLoop {
    /// Sends libevent's own log messages to the `onLibeventMessage` of the loop whose thread logs
    /// them, and to stderr (as libevent does) elsewhere. Process-wide: set once.
    package static func routeLibeventLog() {
        event_set_log_callback(logCallback)
    }
}

private let logCallback: @convention(c) (Int32, UnsafePointer<CChar>?) -> Void = { severity, message in
    guard let message else { return }
    guard let report = EventLoop.current?.onLibeventMessage else {
        let line = Array("[libevent] \(String(cString: message))\n".utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        return
    }
    report(severity, String(cString: message))
}
