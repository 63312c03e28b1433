/// `q=` over the titles of `TodoSlots`: the records are read in slot order and the printable
/// ASCII titles, stored back to back in `titleBytes` (compacted in slot order), are searched
/// sequentially, folding their case on the fly, instead of visiting a string per to-do in random
/// memory order. A title kept beside (`sideTitles`: not printable ASCII) is searched through its
/// key, character by character.
enum SearchArena {
    /// The live slots, ascending, that pass `completed=` and whose title contains `search` (as
    /// `TitleKey.contains` decides): one sequential byte search (`ByteSearch`) per title for a
    /// printable ASCII needle; any other needle cannot match a printable ASCII title and is tried
    /// on the others only.
    static func matches(_ store: TodoSlots, _ search: TitleSearch, completed: Bool?) -> [Int32] {
        var found: [Int32] = []
        let needle = Array(search.folded.utf8)
        let isASCII = search.shifts != nil
        store.titleBytes.withUnsafeBytes { text in
            needle.withUnsafeBytes { needle in
                for chunk in store.chunks.indices {
                    store.chunks[chunk].withUnsafeBufferPointer { records in
                        for index in records.indices {
                            let record = records[index]
                            guard record.isLive else { continue }
                            if let completed, record.completed != completed { continue }
                            let slot = Int32(chunk << TodoSlots.chunkShift + index)
                            let matches: Bool
                            if record.isCompactTitle {
                                let start = Int(record.titleOffset)
                                matches =
                                    isASCII
                                    && ByteSearch.containsFoldingASCII(
                                        UnsafeRawBufferPointer(rebasing: text[start..<(start + Int(record.titleLength))]), needle)
                            } else {
                                matches = store.sideTitles[slot]!.key.contains(search)
                            }
                            if matches { found.append(slot) }
                        }
                    }
                }
            }
        }
        return found
    }
}
