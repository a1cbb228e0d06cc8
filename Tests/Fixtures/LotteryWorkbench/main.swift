// Exercise 9's workbench as `lessons exercise 9` writes it (`Exercise.workbenchMain`), on the exercise's starting
// machine (a link to Sources/Exercise09Start): played by hand on a pseudo-terminal in the tests (PlayTests), with no
// workbench package to build.
import Foundation
import LessonChecks

exit(await WorkbenchMain.run(exercise: 9, machine: LotteryViewController.self))
