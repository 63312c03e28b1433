/// The writes at the end of the loop's turn (`ConnectionMachine.WriteTiming`): the connections
/// whose answers wait for it, and the turn's end that writes them.
extension HTTPLoopServer {
    /// Has `connection`'s answers (`bytes` so far) written at the end of this turn (its machine
    /// asked, once a turn).
    func writeAtTurnEnd(_ connection: HTTPConnection, bytes: Int) {
        awaitingTurnEnd.append(connection)
        turnBytes += bytes
    }

    /// The loop's turn ended: each connection that waits for it writes what it queued, in the order
    /// they queued. What is queued meanwhile (a write that lets a connection read and answer more)
    /// is written at once.
    func endTurn() {
        guard !awaitingTurnEnd.isEmpty else { return }
        writeTiming = .turnEnding
        turnBytes = 0
        var index = 0
        while index < awaitingTurnEnd.count {
            awaitingTurnEnd[index].turnEnded()
            index += 1
        }
        // Keeps the capacity; cheaper than `removeAll(keepingCapacity:)` (~160 instructions a turn,
        // callgrind).
        while awaitingTurnEnd.popLast() != nil {}
        writeTiming = .atTurnEnd
    }
}
