import Foundation
import LessonKit

exit(
    await LessonMain.run(
        5, controller: AppsViewController.self,
        variants: [
            LessonVariant(
                flag: "naive-pool", help: "the pool before its fix: a failed download stays in it, never retried",
                controller: NaivePoolViewController.self)
        ]))
