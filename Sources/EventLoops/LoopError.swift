/// Why a loop could not be made.
public enum LoopError: Error, CustomStringConvertible, Equatable {
    case cannotCreateLoop

    public var description: String {
        switch self {
        case .cannotCreateLoop: "cannot create a libevent loop"
        }
    }
}
