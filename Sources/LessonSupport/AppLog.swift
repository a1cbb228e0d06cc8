/// The app's log: what the tutorials write with `NSLog` to show which step
/// ran ("下载", "解压", "升级完成"). Whoever runs the app decides where the lines
/// go. Each line is handed over on the thread that wrote it, as `NSLog`'s
/// `[pid:tid]` shows which thread that was, so the reader can tell the order
/// the steps ran in and where.
public struct AppLog: Sendable {
    private let write: @Sendable (String) -> Void

    public init(_ write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    /// `log("unzip: 13 files")`.
    public func callAsFunction(_ line: String) {
        write(line)
    }
}
