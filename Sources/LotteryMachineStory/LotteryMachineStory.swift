import Foundation
import LessonKit
import LessonSupport

/// Step 9 played: the whole of the step's `main.swift`. The machine is made
/// from its type (or a variant's, chosen by its flag), its button is pressed
/// by the keyboard or a script, and what it does is watched from outside: the
/// digits it draws, its labels, its button's title, its queue, and the
/// main-queue violations TableKit records.
public enum LotteryMachineStory {
    /// `workbench`: a learner's machine, played under the workbench's entry (its name, and the task where the step
    /// gives its fix), started by `command`.
    public static func run(
        _ machine: any ScreenController.Type, workbench: LessonEntry? = nil,
        command: String = "swift run Lesson09LotteryMachine",
        arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) async -> Int32 {
        let variants = machine.variants
        let example = variants.first.map { "--\($0.flag) " } ?? ""
        let names = LotteryPlan.Names(workbench: workbench)
        return await CustomLessonMain.run(
            9, playedAs: workbench, stories: LotteryPlan.stories(variants: variants),
            stepFlags: LotteryPlan.flags(variants: variants),
            example: "\(command) \(example)--script \"\(LotteryScript.standard)\"", arguments: arguments,
            plan: { options throws(UsageError) in try LotteryPlan(options: options, machine: machine, names: names) },
            play: { plan, run in await LotteryRun(plan: plan, run: run).play() })
    }
}
