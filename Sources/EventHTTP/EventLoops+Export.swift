// The loop primitives (`LoopExecutor`, `LoopHandle`, `FileWatch`, `LoopTimer`, `StandaloneLoop`)
// live in `EventLoops`, which knows nothing of HTTP; code that imports EventHTTP sees them too.
@_exported import EventLoops
