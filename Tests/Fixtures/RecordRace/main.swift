import Foundation
import LessonKit

// Played as step 5's scenarios, as the workbench plays a learner's code.
exit(
    await LessonMain.run(
        LessonCatalog.entry(5)!, controller: RecordViewController.self,
        variants: RecordViewController.variants + [
            CountingRecordViewController.variant, RestingRecordViewController.variant,
        ]))
