import Foundation
import LessonKit

exit(await LessonMain.run(AppsViewController.self))
