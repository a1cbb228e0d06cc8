import Foundation

extension SoftwareUpdate {
    /// The tutorial's commented-out line switched on: the download also waits
    /// for the install.
    ///
    /// Exercise 8: a cycle is accepted without a word, and then nothing ever
    /// runs. Look for one before either queue sees an operation, and refuse it
    /// with an error that names the operations on it.
    func startCheckingForCycles(withCycle: Bool) throws -> [Operation] {
        let (download, unzip, install) = makeOperations()
        unzip.addDependency(download)
        install.addDependency(unzip)
        if withCycle { download.addDependency(install) }
        OperationQueue.main.addOperation(install)
        backgroundQueue.addOperations([download, unzip], waitUntilFinished: false)
        return [download, unzip, install]
    }
}
