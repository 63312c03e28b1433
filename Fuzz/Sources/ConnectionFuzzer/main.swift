import FuzzDriver
import Glibc

// CONNECTION_FUZZER_WRITE_SEEDS=DIRECTORY writes seed inputs (generated streams) instead of fuzzing.
if let directory = getenv("CONNECTION_FUZZER_WRITE_SEEDS").map({ String(cString: $0) }) {
    writeSeeds(to: directory)
    exit(0)
}
runFuzzer { data, size in fuzz(data ?? UnsafePointer(bitPattern: 1)!, size) }
