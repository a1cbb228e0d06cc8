import Foundation
import LessonKit

exit(
    await CustomLessonMain.run(
        9, extraFlags: LotteryPlan.flags,
        example: "swift run Lesson09LotteryMachine --variant no-check --script \"\(LotteryScript.standard)\"",
        plan: { options throws(UsageError) in try LotteryPlan(options: options) },
        play: { plan, run in await LotteryRun(plan: plan, run: run).play() }))
