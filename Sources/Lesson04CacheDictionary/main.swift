import Foundation
import LessonKit

exit(await LessonMain.run(4, controller: AppsViewController.self))
