import Foundation
import LessonKit

/// `swift run lessons`: the catalog of steps, a way to run any of them, the
/// tools that compare them (scoreboard, timelines, frame cost, benchmark), and
/// the exercises. The commands are in `Lessons.commands`.
StandardStreams.checkAtStart()
// Ctrl-C, SIGTERM, SIGHUP: the children (a step, the workbench, `swift build`)
// end too, the scratch folders go, a progress line is wiped, and a live
// screen (compare's) gets its cursor and colours back.
ChildProcess.endChildrenOnSignals(beforeExit: { ProgressLine.wipeLine() })
let status = await Lessons.main(Array(CommandLine.arguments.dropFirst()))
exit(StandardStreams.exitStatus(status, program: "lessons"))
