import Foundation
import LessonKit
import LessonSupport

// Played as step 6's scenarios, as the workbench plays a learner's code.
exit(
    await LessonMain.run(
        LessonCatalog.entry(6)!, controller: HashNamedViewController.self,
        variants: [
            LessonVariant(
                flag: "static-memory-cache", help: "a static memory cache and no disk cache",
                controller: StaticMemoryViewController.self)
        ]))
