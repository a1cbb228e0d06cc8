import Foundation
import LessonKit

// Played as step 2's scenarios, as the workbench plays a learner's code.
exit(await LessonMain.run(LessonCatalog.entry(2)!, controller: AppsViewController.self))
