import CLibevent
import Glibc
import HTTPValues

/// The bytes of a connection: reading into reserved input space with `read(2)`, framing what was
/// read and handing each complete request to the handler, writing answers (one `writev`, at the
/// end of the loop's turn unless `writeAtTurnEnd` is off), and the framing's refusals.
extension HTTPConnection {
    /// Reads once what the kernel holds, up to the input's bound. A read that returns less than it
    /// asked for emptied the socket: the next readiness edge says when more arrives, so no read is
    /// made just to see `EAGAIN`. A read that filled its space leaves `readPending` set: the
    /// caller frames and answers first, then reads again as the budget allows.
    func readSocket() {
        readPending = false
        while true {
            let buffered = evbuffer_get_length(input)
            let room = server.wireSettings.inputBytes - buffered
            guard room > 0 else {
                readPending = true
                return
            }
            let wanted = min(room, WireSettings.readBytes)
            var vector = iovec()
            guard evbuffer_reserve_space(input, wanted, &vector, 1) >= 1 else {
                close()
                return
            }
            let count = read(socket, vector.iov_base, wanted)
            if count > 0 {
                vector.iov_len = count
                evbuffer_commit_space(input, &vector, 1)
                state.activity(now: .now)
                server.noteInput(bufferedBytes: buffered + count)
                if count == wanted {
                    readPending = true
                } else if peerHalfClosed {
                    // The client ended its side before these bytes were read: they were its last.
                    state.clientEndedStream()
                }
                return
            }
            if count == 0 {
                state.clientEndedStream()
                return
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return
            default:
                state.socketFailed()
                close()
                return
            }
        }
    }

    /// Frames what is buffered and hands each complete request to the handler, one at a time,
    /// while no answer is awaited and the budget allows.
    func frameAndDispatch() {
        while isOpen, ask({ $0.framesRequests }), !framing.isFinished {
            let framed = framing.position - inputOffset
            let buffered = evbuffer_get_length(input)
            guard framed < buffered else { return }
            var events = FramingEvents()
            feed(from: framed, count: buffered - framed, into: &events)
            if events.headsCompleted > 0 || events.messagesCompleted > 0 {
                run(state.framed(events))
            }
            if let refusal = events.refusal {
                refuse(refusal)
                return
            }
            if events.headsCompleted > 0 {
                server.wireCounters.requestHeads.add(events.headsCompleted, ordering: .relaxed)
                state.headCompleted()
                guard headArrived(bodyFollows: events.messagesCompleted == 0) else { return }
            }
            if !events.bodySpans.isEmpty {
                var arrived = 0
                state.appendToBody { body in
                    for span in events.bodySpans {
                        copyInput(from: span.lowerBound - inputOffset, count: span.count, into: &body)
                        arrived += span.count
                    }
                }
                state.bodyBytesArrived(count: arrived)
            }
            // What was framed is consumed — the head read, the body copied, chunk lines seen — but
            // not part of a head: it is read once whole.
            if framing.position > inputOffset, ask({ $0.exchange.isReceiving }) || framing.isIdle {
                evbuffer_drain(input, framing.position - inputOffset)
                inputOffset = framing.position
            }
            if events.messagesCompleted > 0 {
                messageArrived()
            } else if framing.headBegun, !ask({ $0.exchange.isReceiving }) {
                // Part of a head (or empty lines before one): it must be whole within the time-out,
                // however slowly it comes.
                state.headStarted(now: .now)
            }
        }
    }

    /// Hands `count` buffered bytes from `start` to the framing, without copying, up to the first
    /// boundary (a head or a message complete, a refusal).
    private func feed(from start: Int, count: Int, into events: inout FramingEvents) {
        var position = evbuffer_ptr()
        guard evbuffer_ptr_set(input, &position, start, EVBUFFER_PTR_SET) == 0 else { return }
        let needed = Int(evbuffer_peek(input, count, &position, nil, 0))
        guard needed > 0 else { return }
        withUnsafeTemporaryAllocation(of: iovec.self, capacity: needed) { vectors in
            let filled = Int(evbuffer_peek(input, count, &position, vectors.baseAddress, Int32(needed)))
            var left = count
            for vector in vectors.prefix(filled) where left > 0 {
                let length = min(vector.iov_len, left)
                let taken = framing.consume(
                    UnsafeRawBufferPointer(start: vector.iov_base, count: length), into: &events, stoppingAtBoundary: true)
                left -= taken
                if taken < length || framing.isFinished { break }
            }
        }
    }

    /// The framing accepted a head, which ends where it stopped: reads it out of the input. With
    /// a body to come and none of it here yet, `Expect: 100-continue` is answered now: `100
    /// Continue`, or the handler's final answer when it refuses the request from its head. False
    /// if the connection closed or the stream ended with that answer.
    private func headArrived(bodyFollows: Bool) -> Bool {
        let start = framing.requestStart
        let end = framing.position
        // Empty lines before the request line (RFC 9112 §2.2).
        if start > inputOffset {
            evbuffer_drain(input, start - inputOffset)
            inputOffset = start
        }
        let length = end - start
        guard let bytes = evbuffer_pullup(input, length) else {
            close()
            return false
        }
        let request = HTTPRequest(acceptedHead: UnsafeRawBufferPointer(start: bytes, count: length), clientAddress: clientAddress)
        evbuffer_drain(input, length)
        inputOffset = end
        if bodyFollows {
            state.bodyBegan(now: .now)
            let expectsContinue = request.expectsContinue
            let bodyArrived = evbuffer_get_length(input) > 0
            var action = ask { $0.bodyAwaited(expectsContinue: expectsContinue, bodyArrived: bodyArrived) }
            var refusal: HTTPResponse?
            if case .askHandler(let overLimit) = action {
                refusal = server.handler.answer(toHead: request, loopIndex: server.index, connectionOverLimit: overLimit)
                action = ConnectionMachine.headDecided(refuses: refusal != nil)
            }
            switch action {
            case .read, .askHandler:
                break
            case .sendContinue:
                bytesQueued += HTTPResponseWriter.writeContinue(to: output)
            case .answerFromHead:
                if let refusal { endStream(answering: refusal, isHead: request.method == .head) }
                return false
            }
        }
        state.receiving(request)
        return true
    }

    /// The framing completed the pending request's message: its body was copied as it arrived.
    private func messageArrived() {
        guard let request = state.takeReceived() else { return }
        dispatch(request)
    }

    private func copyInput(from offset: Int, count: Int, into body: inout [UInt8]) {
        guard count > 0 else { return }
        let start = body.count
        body.append(contentsOf: repeatElement(0, count: count))
        body.withUnsafeMutableBufferPointer { buffer in
            var position = evbuffer_ptr()
            guard evbuffer_ptr_set(input, &position, offset, EVBUFFER_PTR_SET) == 0 else { return }
            _ = evbuffer_copyout_from(input, &position, buffer.baseAddress! + start, count)
        }
    }

    private func dispatch(_ request: HTTPRequest) {
        let requestID = server.nextRequestID()
        let options = request.connectionOptions
        let start = state.requestStarted(
            requestID, isHead: request.method == .head, minorVersion: request.version.minor, asksClose: options.close,
            asksKeepAlive: options.keepAlive)
        server.requestStarted()
        server.handler.handle(
            request, responder: HTTPResponder(connection: self, request: requestID, connectionOverLimit: start.refuse))
    }

    /// The handler's answer to `request`: written into the output, then to the socket by the round
    /// of service that follows (or ends the callback the connection is in): at the end of the
    /// loop's turn (`ConnectionMachine.roundQueued`).
    func answer(_ response: HTTPResponse, to request: ConnectionStateMachine.RequestID) -> HTTPResponder.Delivery {
        guard isOpen else { return .connectionClosed }
        let draining = server.isDraining
        guard let decided = state.requestAnswered(request, now: .now, draining: draining, closeAsked: response.asksToClose) else {
            return .alreadyAnswered
        }
        let framing = HTTPResponseWriter.Framing(
            isHead: decided.isHead, closes: decided.closes, http10KeepAlive: decided.http10KeepAlive)
        bytesQueued += HTTPResponseWriter.write(response, framing: framing, date: server.date.current(), to: output)
        unwrittenAnswers.append((request, bytesQueued))
        // Over the output bound, no more pipelined requests are taken until the client reads.
        outputNoted(pendingBytes: evbuffer_get_length(output))
        if !servicing { service() }
        return .sent
    }

    /// The framing refused the stream: the handler's problem answer, then a lingering close.
    private func refuse(_ refusal: HTTPFraming.Refusal) {
        server.wireCounters.refusedStreams.add(1, ordering: .relaxed)
        let origin = ask({ $0.exchange.head })?.headers["Origin"] ?? originOfBufferedHead()
        let response =
            server.handler.replacementForWireError(status: refusal.status, detail: refusal.detail, origin: origin)
            ?? HTTPResponse(
                status: refusal.status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(refusal.detail.utf8))
        endStream(answering: response, isHead: false)
    }

    /// The machine found the body being read slower than the minimum rate (and refused the
    /// stream): a 408 problem answer, then a lingering close.
    func refuseSlowBody() {
        guard isOpen, let rate = server.wireSettings.bodyRate else { return }
        refuse(
            HTTPFraming.Refusal(
                status: ConnectionMachine.BodyRate.refusalStatus, detail: rate.refusalDetail, cutOffset: framing.position))
        if !servicing { service() }
    }

    /// The stream ends with `response` (a refusal): nothing more is read or framed, and the
    /// connection closes once it is written, lingering.
    private func endStream(answering response: HTTPResponse, isHead: Bool) {
        let refusal = state.streamRefused()
        run(refusal.reading)
        let framing = HTTPResponseWriter.Framing(
            isHead: isHead, closes: refusal.framing.closes, http10KeepAlive: refusal.framing.http10KeepAlive)
        bytesQueued += HTTPResponseWriter.write(response, framing: framing, date: server.date.current(), to: output)
    }

    /// The `Origin` of the head being read when the framing refused it (one field line that
    /// arrived whole), so that a page on a listed origin can read the refusal; nil otherwise.
    private func originOfBufferedHead() -> String? {
        let start = framing.requestStart - inputOffset
        let length = min(evbuffer_get_length(input) - start, 64 << 10)
        guard start >= 0, length > 0 else { return nil }
        var head = [UInt8](repeating: 0, count: length)
        var position = evbuffer_ptr()
        guard evbuffer_ptr_set(input, &position, start, EVBUFFER_PTR_SET) == 0,
            evbuffer_copyout_from(input, &position, &head, length) == length
        else { return nil }
        var origins: [String] = []
        for line in head.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropFirst().dropLast() {
            guard line.count > 7, String(decoding: line.prefix(7), as: UTF8.self).lowercased() == "origin:" else { continue }
            origins.append(String(Substring(String(decoding: line.dropFirst(7), as: UTF8.self)).trimmingASCIISpaces()).trimmingSuffix("\r"))
        }
        return origins.count == 1 ? origins[0] : nil
    }

    /// Writes what is queued until the kernel would block; then completes the answers written,
    /// tells a stream that waited that the output drained (writing again what it queues then), and
    /// closes a connection whose last answer said so.
    func flush() {
        guard !flushing else { return }
        flushing = true
        defer { flushing = false }
        var round = 0
        while true {
            round += 1
            writeQueued()
            guard isOpen else { return }
            let pending = evbuffer_get_length(output)
            // Another round writes what the stream queued on hearing `.drained` — and sees it ended
            // there: an end that adds no bytes (close-delimited, HTTP/1.0) left nothing to write, and
            // only a round after it closes the connection.
            let refilled =
                stream != nil && streamDrained(pendingBytes: pending) && isOpen
                && ((!writeBlocked && evbuffer_get_length(output) > pending) || stream == nil)
            switch ConnectionMachine.afterFlushRound(
                round: round, refilled: refilled, writeBlocked: writeBlocked, pendingBytes: evbuffer_get_length(output))
            {
            case .again: continue
            // A stream that keeps refilling a socket that keeps taking it does not hold the loop:
            // the rest goes out in the next turn (no readiness edge comes for a socket that never
            // blocked).
            case .yieldTurn: resumeLater()
            case .done: break
            }
            return
        }
    }

    private func writeQueued() {
        var wrote = false
        while !writeBlocked, evbuffer_get_length(output) > 0 {
            let written = evbuffer_write_atmost(output, socket, -1)
            if written > 0 {
                bytesWritten += Int(written)
                wrote = true
                continue
            }
            if written < 0, errno == EINTR { continue }
            if written < 0, errno != EAGAIN, errno != EWOULDBLOCK {
                state.socketFailed()
                close()
                return
            }
            writeBlocked = true
        }
        if wrote { state.activity(now: .now) }
        // A completion can close the connection (its reading resumes, a read finds the peer
        // gone); the close reported the answers still unwritten, so none is counted again.
        while isOpen, let first = unwrittenAnswers.first, first.end <= bytesWritten {
            unwrittenAnswers.removeFirst()
            run(state.requestCompleted())
            server.requestCompleted()
        }
        guard isOpen else { return }
        let pending = evbuffer_get_length(output)
        outputNoted(pendingBytes: pending)
        if pending == 0 { run(state.outputEmptied()) }
    }
}

extension HTTPResponse {
    /// The handler's answer says `Connection: close` (a refusal after which the stream cannot be
    /// trusted): the connection closes after it.
    var asksToClose: Bool {
        headers.contains { $0.name.utf8.count == 10 && $0.name.equalsIgnoringASCIICase("Connection") && $0.value.contains("close") }
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
