import DependencyTour
import Foundation

// The tour makes the update's world (its network, its log, how long its unzip
// takes), drives the update through these controls, and watches it from outside.
exit(
    await DependencyTour.run { world in
        let update = SoftwareUpdate(
            network: world.network, log: world.log, clock: world.clock, unzipSeconds: world.unzipSeconds)
        return UpdateControls(
            start: update.start(withDependencies:), startWithCancelledDownload: update.startWithCancelledDownload,
            startWithUncheckedCycle: update.startWithUncheckedCycle,
            startCheckingForCycles: update.startCheckingForCycles(withCycle:), backgroundQueue: update.backgroundQueue,
            statusLabel: update.statusLabel)
    })
