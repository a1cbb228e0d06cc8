import LessonSupport

extension LotteryViewController {
    /// `swift run Lesson09LotteryMachine --no-check` (or `--off-main`) plays the machine with one of its bugs.
    static var variants: [ScreenVariant] {
        [
            ScreenVariant(
                flag: "no-check", help: "the rolling loop never looks at isSuspended: pausing does not stop it",
                controller: NoCheckLotteryViewController.self),
            ScreenVariant(
                flag: "off-main", help: "the rolling loop writes the digits off the main queue",
                controller: OffMainLotteryViewController.self),
        ]
    }
}
