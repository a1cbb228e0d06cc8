/// `UIButton`, reduced to its title and what a tap does. The title is UI, so
/// setting it off the main queue is recorded as a violation; a tap is
/// delivered on the main queue, as UIKit delivers it.
public final class Button {
    public var title: String {
        didSet { MainQueue.check("Button.title set off the main queue", in: instruments) }
    }
    private var actions: [() -> Void] = []
    /// The scenario's, when it was made (see `MainQueue.check`).
    private let instruments = Instruments.current

    public init(title: String) {
        self.title = title
        ViewsMade.note(self)
    }

    /// What a tap does: `addTarget(_:action:for: .touchUpInside)`.
    public func addAction(_ action: @escaping () -> Void) {
        actions.append(action)
    }

    /// A tap: `sendActions(for: .touchUpInside)`. Call it on the main queue.
    public func sendActions() {
        MainQueue.check("Button tapped off the main queue", in: instruments)
        for action in actions { action() }
    }
}
