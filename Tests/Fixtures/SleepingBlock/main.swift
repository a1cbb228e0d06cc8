import Foundation
import LessonKit

// Played as step 2's scenarios, as the workbench plays a learner's exercise 2.
exit(await LessonMain.run(LessonCatalog.entry(2)!, controller: AppsViewController.self))
