import Foundation
import LessonKit

exit(await LessonMain.run(6, controller: AppsViewController.self))
