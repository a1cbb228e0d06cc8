import Foundation
import HostOS

/// What the place a stream goes to can show: how many columns a line may
/// take, whether the screen can be redrawn in place, whether colours are wanted.
///
/// A terminal says its width itself (`TIOCGWINSZ`); a pipe or a file has none,
/// unless `COLUMNS` gives one (`lessons check` passes its own to the workbench
/// it reads). `TERM=dumb` is a terminal that cannot move its cursor or colour
/// text; `NO_COLOR` (no-color.org) asks for no colour, anywhere.
public struct TerminalOutput: Sendable, Equatable {
    public static var standardOutput: TerminalOutput { TerminalOutput(descriptor: HostDescriptor.standardOutput) }
    public static var standardError: TerminalOutput { TerminalOutput(descriptor: HostDescriptor.standardError) }

    public let isTerminal: Bool
    /// The columns a line may take; nil: any length (a file or a pipe).
    public let columns: Int?
    /// A terminal that takes cursor moves: a live screen can be drawn on it.
    public let drawsInPlace: Bool
    /// Colours wanted: a terminal that draws in place, and no `NO_COLOR`.
    public let showsColour: Bool

    /// Fewer columns than this is a width no text can be laid out in; taken as this.
    public static let narrowest = 20

    public init(isTerminal: Bool, terminalColumns: Int?, environment: [String: String]) {
        self.isTerminal = isTerminal
        let declared = environment["COLUMNS"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
        columns = (isTerminal ? terminalColumns ?? declared : declared).map { max($0, Self.narrowest) }
        drawsInPlace = isTerminal && environment["TERM"] != "dumb"
        showsColour = drawsInPlace && (environment["NO_COLOR"] ?? "").isEmpty
    }

    public init(descriptor: Int32, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let isTerminal = HostTerminal.isTerminal(descriptor)
        let columns = isTerminal ? HostTerminal.size(of: descriptor)?.columns : nil
        self.init(isTerminal: isTerminal, terminalColumns: columns.flatMap { $0 > 0 ? $0 : nil }, environment: environment)
    }
}
