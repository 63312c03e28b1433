import EventHTTP
import HTTPValues

// The pipeline's sink on the wire: the transport's responder and stream, in the application's
// wiring, so that the pipeline itself speaks HTTPValues only.

extension HTTPResponder: ResponseSink {
    public func openStream(
        status: Int, headers: HTTPHeaders, backPressure: HTTPStreamBackPressure, onEvent: @escaping (HTTPStreamEvent) -> Void
    ) -> (any ResponseStreamWriter)? {
        startStream(status: status, headers: headers, backPressure: backPressure, onEvent: onEvent)
    }
}

extension HTTPResponseStream: ResponseStreamWriter {}
