import Foundation
import LessonKit

#if canImport(Glibc)
    import Glibc
#endif

/// `swift run lessons`: the catalog of steps, a way to run any of them, and the
/// tools that compare them (scoreboard, timelines, frame cost, benchmark).
let arguments = Array(CommandLine.arguments.dropFirst())
let usage = """
    usage: lessons                      list the steps
           lessons run N [flags]        run step N (flags: lessons run N --help)
           lessons scoreboard [flags]   every image-list step on one scenario, in one table (--matrix: bugs × steps)
           lessons timelines [flags]    one timeline picture per image-list step, into docs/timelines/
           lessons framecost [flags]    the harness's frame work against the catalog's length
           lessons bench [flags]        Operation vs GCD vs Swift concurrency (swift run -c release lessons bench)
           lessons --help               this text
    Each command takes --help.
    Exercises (fix each step's bug yourself):
           lessons exercise [N]    lessons check [N]    lessons hint N    lessons reset [N]    lessons solution [N]
    """

func listLessons() {
    print("OperationLessons: Operation and OperationQueue, one bug at a time.\n")
    for entry in LessonCatalog.all {
        print("\(entry.id)  \(entry.title)")
        print("    fixes: \(entry.fixes)")
        print("    run:   swift run lessons run \(entry.number)   (or: swift run \(entry.target))")
        print("    read:  \(entry.text)")
    }
    print("\nEvery step takes --help, --speed X, --json, --timeline FILE.svg. Tests: swift test")
    print("Compare them: swift run lessons scoreboard")
    print("Fix each bug yourself: swift run lessons exercise")
}

/// Replaces this process with the step's own executable, built beside this one,
/// so the step owns the terminal (colours, Ctrl-C) exactly as when run directly.
func runLesson(_ entry: LessonEntry, flags: [String]) -> Never {
    let executable = StepProcess.besideThisProgram().executable(for: entry).path
    guard FileManager.default.isExecutableFile(atPath: executable) else {
        FileHandle.standardError.write(Data("lessons: \(executable) is not built; run: swift build\n".utf8))
        exit(1)
    }
    let argv = [executable] + flags
    var cArguments = argv.map { strdup($0) } + [nil]
    execv(executable, &cArguments)
    FileHandle.standardError.write(
        Data("lessons: cannot start \(executable): \(String(cString: strerror(errno)))\n".utf8))
    exit(1)
}

switch arguments.first {
case nil, "list":
    listLessons()
case "--help", "-h", "help":
    print(usage)
case "run":
    guard arguments.count >= 2, let number = Int(arguments[1]), let entry = LessonCatalog.entry(number) else {
        let known = LessonCatalog.all.map { String($0.number) }.joined(separator: ", ")
        FileHandle.standardError.write(Data("lessons: run needs a step number (\(known))\n\(usage)\n".utf8))
        exit(2)
    }
    runLesson(entry, flags: Array(arguments.dropFirst(2)))
case "scoreboard":
    exit(ScoreboardCommand.run(Array(arguments.dropFirst())))
case "timelines":
    exit(TimelinesCommand.run(Array(arguments.dropFirst())))
case "framecost":
    exit(FrameCostCommand.run(Array(arguments.dropFirst())))
case "bench":
    exit(await BenchCommand.run(Array(arguments.dropFirst())))
case "exercise", "check", "hint", "reset", "solution":
    exit(ExerciseCommands.run(arguments[0], Array(arguments.dropFirst())))
default:
    FileHandle.standardError.write(Data("lessons: unknown command '\(arguments[0])'\n\(usage)\n".utf8))
    exit(2)
}
