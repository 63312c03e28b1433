extension Array {
    /// For an array read as a queue from `head` on (the elements before it taken): lets the taken
    /// ones go, keeping the capacity, once all are taken; else once they are at least 1,024 and
    /// half the array (so that an element is moved at most once on average). `head` is then 0.
    /// `PostgresConnectionStateMachine`'s requests and `PostgresPoolQueue`'s entries.
    @inline(__always)
    mutating func dropTaken(head: inout Int) {
        if head == count {
            removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= count {
            removeFirst(head)
            head = 0
        }
    }
}
