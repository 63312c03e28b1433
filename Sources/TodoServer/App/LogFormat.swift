/// How log events are written: `text` lines for people, `json` objects (one per line) for collectors.
public enum LogFormat: String, Sendable, CaseIterable {
    case text
    case json
}
