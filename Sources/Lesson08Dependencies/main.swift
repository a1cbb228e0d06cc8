import Foundation
import LessonKit

exit(
    await CustomLessonMain.run(
        8, extraFlags: TourPlan.flags, unsupported: [.scenario, .catalog, .clearCache],
        example: "swift run Lesson08Dependencies --part chain,cycle --seed 3 --timeline /tmp/lesson08.svg",
        plan: TourPlan.init(options:),
        play: { plan, run in await Tour(plan: plan, run: run).play() }))
