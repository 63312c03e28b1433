import CLibevent
import CSupport
import Synchronization
import Glibc

/// Strict framing and bounded buffers on top of evhttp.
///
/// Every connection's input buffer gets an evbuffer callback. libevent 2.1.12 runs it inside
/// `evbuffer_read` (bufferevent_sock.c `bufferevent_readcb`), before the bufferevent's read callback
/// (evhttp's `evhttp_read_cb`) is triggered, and the input's end is unfrozen only during that read:
/// so `HTTPFraming` sees every byte before evhttp parses it, and the loop can still edit the bytes
/// just read. A refused stream is cut where evhttp has not read yet and replaced by a line evhttp
/// refuses in any state (request line, header, chunk size, trailer); evhttp then writes its error
/// page, which `EventLoop+WireErrors` replaces by the handler's problem+json with the framing's
/// status and detail, and closes.
///
/// Reading is throttled with the input's high watermark, which evhttp never touches: at most
/// `inputBytes` are buffered, and none are read while `ConnectionBudget` says the client is not
/// taking its answers.
extension EventLoop {
    /// The line that makes evhttp refuse whatever it is reading: no colon, no space, not hexadecimal.
    private static let poison: [UInt8] = [0x01, 0x0D, 0x0A]

    /// Sets up framing and the budget for a new connection (at accept, before evhttp reads).
    func watchFraming(_ bufferEvent: OpaquePointer) {
        let input = bufferevent_get_input(bufferEvent)!
        let output = bufferevent_get_output(bufferEvent)!
        // The watermark callback first: ours, added later, runs before it (libevent calls the
        // newest callback first), so it sees the length after our edits.
        bufferevent_setwatermark(bufferEvent, Int16(EV_READ), 0, wireSettings.inputBytes)
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = evbuffer_add_cb(input, inputCallback, context)
        _ = evbuffer_add_cb(output, outputBudgetCallback, context)
        let wire = WireConnection(bufferEvent: bufferEvent, input: input, output: output, limits: wireSettings.framing)
        if let old = wireOfBufferEvent.updateValue(wire, forKey: bufferEvent) { forget(old) }
        wires[input] = wire
        wires[output] = wire
    }

    /// Forgets a connection's wire state (it is closed: `bufferEvent` may be freed, and is not read).
    func forgetWire(_ bufferEvent: OpaquePointer) {
        guard let wire = wireOfBufferEvent.removeValue(forKey: bufferEvent) else { return }
        forget(wire)
    }

    private func forget(_ wire: WireConnection) {
        // A freed buffer's address may already belong to a newer connection.
        if wires[wire.input] === wire { wires.removeValue(forKey: wire.input) }
        if wires[wire.output] === wire { wires.removeValue(forKey: wire.output) }
    }

    /// The refusal to answer on the connection whose output buffer is `output`, if its stream was refused.
    func refusal(forOutput output: OpaquePointer) -> HTTPFraming.Refusal? {
        wires[output]?.refusal
    }

    /// Bytes were added to (or removed from) a connection's input.
    fileprivate func inputChanged(_ buffer: OpaquePointer, added: Int) {
        guard !editingInput, added > 0, let wire = wires[buffer] else { return }
        let length = evbuffer_get_length(buffer)
        if length >= ConnectionStateMachine.largeBufferBytes { machine.bufferSeen(bytes: length) }
        wireCounters.noteInput(length)
        wire.received += added
        if wire.received == added { trackConnection(of: wire.bufferEvent) }
        if wire.framing.isFinished {
            // Refused or discarded earlier: these bytes are never parsed.
            edit(buffer) { truncate(buffer, keeping: length - added) }
            return
        }
        var events = FramingEvents()
        feed(wire, buffer, from: length - added, count: added, into: &events)
        let id = ConnectionStateMachine.ConnectionID(wire.bufferEvent)
        if events.headsCompleted > 0 || events.messagesCompleted > 0 { apply(machine.framed(id, events), to: wire.bufferEvent) }
        if events.headsCompleted > 0 { wireCounters.requestHeads.add(events.headsCompleted, ordering: .relaxed) }
        if !events.removals.isEmpty { remove(events.removals, from: buffer, wire: wire) }
        if let refusal = events.refusal {
            wire.refusal = refusal
            wireCounters.refusedStreams.add(1, ordering: .relaxed)
            cut(buffer, wire: wire, at: refusal.cutOffset, poison: true)
            bufferevent_disable(wire.bufferEvent, Int16(EV_READ))
            apply(machine.streamFinished(id, refused: true), to: wire.bufferEvent)
        } else if let from = events.discardFrom {
            cut(buffer, wire: wire, at: from, poison: false)
            apply(machine.streamFinished(id, refused: false), to: wire.bufferEvent)
        }
    }

    /// Output changed: reading stops while more than `maxOutputBytes` wait to be sent.
    fileprivate func outputBudgetChanged(_ buffer: OpaquePointer) {
        let length = evbuffer_get_length(buffer)
        if length >= ConnectionStateMachine.largeBufferBytes { machine.bufferSeen(bytes: length) }
        // Cheap in the common case: no lookup unless over the limit or some connection is throttled
        // (read from the published count, which follows the machine's: no access to the machine).
        guard length > wireSettings.budget.maxOutputBytes || wireCounters.throttledConnections.load(ordering: .relaxed) > 0,
            let wire = wires[buffer]
        else { return }
        apply(machine.outputPending(ConnectionStateMachine.ConnectionID(wire.bufferEvent), bytes: length), to: wire.bufferEvent)
    }

    /// Opens or closes `bufferEvent`'s read watermark as its budget says.
    func apply(_ reading: ConnectionStateMachine.ReadingAction, to bufferEvent: OpaquePointer) {
        guard reading != .unchanged else { return }
        wireCounters.throttledConnections.store(machine.throttledCount, ordering: .relaxed)
        // A high watermark of 1 byte stops reading (at most one more byte is read, then it is
        // suspended until the client catches up); evhttp's own enable/disable does not undo it.
        bufferevent_setwatermark(bufferEvent, Int16(EV_READ), 0, reading == .resumeReading ? wireSettings.inputBytes : 1)
    }

    /// Hands `count` bytes from `start` in `buffer` to the connection's framing, without copying.
    private func feed(_ wire: WireConnection, _ buffer: OpaquePointer, from start: Int, count: Int, into events: inout FramingEvents) {
        var position = evbuffer_ptr()
        guard evbuffer_ptr_set(buffer, &position, start, EVBUFFER_PTR_SET) == 0 else { return }
        let needed = Int(evbuffer_peek(buffer, count, &position, nil, 0))
        guard needed > 0 else { return }
        withUnsafeTemporaryAllocation(of: iovec.self, capacity: needed) { vectors in
            let filled = Int(evbuffer_peek(buffer, count, &position, vectors.baseAddress, Int32(needed)))
            var left = count
            for vector in vectors.prefix(filled) where left > 0 {
                let length = min(vector.iov_len, left)
                wire.framing.consume(UnsafeRawBufferPointer(start: vector.iov_base, count: length), into: &events)
                left -= length
                if wire.framing.isFinished { break }
            }
        }
    }

    /// The buffer index of stream offset `offset`: the buffer ends at the stream's last byte read.
    private func index(of offset: Int, in buffer: OpaquePointer, wire: WireConnection) -> Int {
        let length = evbuffer_get_length(buffer)
        return max(0, min(length, length - (wire.received - offset)))
    }

    /// Drops the stream from `offset` on, adding the poison line when the stream is refused.
    private func cut(_ buffer: OpaquePointer, wire: WireConnection, at offset: Int, poison: Bool) {
        let keep = index(of: offset, in: buffer, wire: wire)
        edit(buffer) {
            truncate(buffer, keeping: keep)
            if poison { Self.poison.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) } }
        }
    }

    /// Deletes the stream ranges `removals` (ascending, all still in the buffer) from `buffer`.
    private func remove(_ removals: [Range<Int>], from buffer: OpaquePointer, wire: WireConnection) {
        guard let first = removals.first else { return }
        let start = index(of: first.lowerBound, in: buffer, wire: wire)
        let length = evbuffer_get_length(buffer)
        var tail = [UInt8](repeating: 0, count: length - start)
        var position = evbuffer_ptr()
        guard evbuffer_ptr_set(buffer, &position, start, EVBUFFER_PTR_SET) == 0 else { return }
        _ = evbuffer_copyout_from(buffer, &position, &tail, tail.count)
        let tailOffset = wire.received - tail.count
        edit(buffer) {
            truncate(buffer, keeping: start)
            var next = 0
            for range in removals {
                let lower = range.lowerBound - tailOffset, upper = range.upperBound - tailOffset
                tail.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress! + next, lower - next) }
                next = upper
            }
            tail.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress! + next, tail.count - next) }
        }
        // Stream offsets still map to buffer positions from the end (`index(of:in:wire:)`):
        // every later offset lies after the removed bytes.
    }

    /// Runs `body`, which changes `buffer`, without our callback reacting to the change.
    private func edit(_ buffer: OpaquePointer, _ body: () -> Void) {
        editingInput = true
        body()
        editingInput = false
    }
}

/// Keeps the first `count` bytes of `buffer` (evbuffer has no call to drop its end).
private func truncate(_ buffer: OpaquePointer, keeping count: Int) {
    let length = evbuffer_get_length(buffer)
    guard count < length else { return }
    if count == 0 {
        evbuffer_drain(buffer, length)
        return
    }
    guard let kept = evbuffer_new() else { return }
    evbuffer_remove_buffer(buffer, kept, count)
    evbuffer_drain(buffer, evbuffer_get_length(buffer))
    evbuffer_add_buffer(buffer, kept)
    evbuffer_free(kept)
}

/// What the loops apply to every connection's wire.
struct WireSettings {
    init(_ configuration: HTTPServerConfiguration) {
        framing = HTTPFraming.Limits(
            maxHeadBytes: configuration.maxHeaderBytes, maxBodyBytes: configuration.maxBodyBytes,
            maxChunkLineBytes: configuration.maxChunkLineBytes)
        budget = ConnectionBudget(
            maxPipelinedRequests: configuration.maxPipelinedRequests, maxOutputBytes: configuration.maxOutputBytes)
        // A whole request fits (evhttp keeps a Content-Length body in the input until it is
        // complete), plus one socket read.
        inputBytes = configuration.maxHeaderBytes + configuration.maxBodyBytes + (16 << 10)
        timeoutSeconds = configuration.timeoutSeconds
    }

    var framing: HTTPFraming.Limits
    var budget: ConnectionBudget
    /// The input buffer's high watermark: a whole request (head and largest body) fits.
    var inputBytes: Int
    /// The connection time-out, which also bounds a lingering close.
    var timeoutSeconds: Double
}

private let inputCallback: @convention(c) (OpaquePointer?, UnsafePointer<evbuffer_cb_info>?, UnsafeMutableRawPointer?) -> Void = {
    buffer, info, context in
    guard let buffer, let info, info.pointee.n_added > 0 else { return }
    Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue().inputChanged(buffer, added: info.pointee.n_added)
}

private let outputBudgetCallback: @convention(c) (OpaquePointer?, UnsafePointer<evbuffer_cb_info>?, UnsafeMutableRawPointer?) -> Void = {
    buffer, _, context in
    guard let buffer else { return }
    Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue().outputBudgetChanged(buffer)
}
