import HostOS

/// The one hang guard of every story clock: it stops a run whose app keeps
/// the story from moving on, and says how it hung. It measures the run, not
/// the machine: a loaded machine makes a run slow in wall time but not in
/// what the run does, so the guard counts only
/// - the processor time the process ran while the story stood still (an
///   endless loop, on the main queue or a worker: it runs for ever), and
/// - the wall time in which no thread of the process could run and none ran
///   (a deadlock, a wait for what never comes: nothing runs at all).
/// A thread that waits for a processor (the load's doing) adds to neither.
struct HangGuard {
    /// How long a hang of either kind may last: processor time, or wall time with every thread blocked.
    let limit: Duration
    private let meter: Meter
    /// Since when the app has kept the story still, and why.
    private var spell: Spell?

    init(limit: Duration, meter: Meter = .host) {
        self.limit = limit
        self.meter = meter
    }

    /// What the guard reads: this process's processor time, the wall clock less the time the process was stopped
    /// (Ctrl-Z is no hang), and whether another thread of it can run. A test hands it a double.
    struct Meter: Sendable {
        var processorTime: @Sendable () -> Duration
        var awakeTime: @Sendable () -> ContinuousClock.Instant
        var anotherThreadCanRun: @Sendable () -> Bool

        static let host = Meter(
            processorTime: { ProcessorTime.ofThisProcess }, awakeTime: { JobControl.now },
            anotherThreadCanRun: { ProcessorTime.anotherThreadCanRun() })
    }

    /// One stretch of story standing still, as measured so far.
    private struct Spell {
        var reason: String
        let processorAtStart: Duration
        var lastLook: (awake: ContinuousClock.Instant, processor: Duration)
        var ran: Duration = .zero
        var blocked: Duration = .zero
    }

    /// The shortest stretch of wall time judged at one look: a shorter one says nothing about who could run.
    static let shortestLook = Duration.milliseconds(50)

    /// What kept the clock waiting last, while it waits.
    var reason: String? { spell?.reason }

    /// Whether the app has hung: run `limit` of processor time, or been blocked for `limit` of wall time.
    var isPastLimit: Bool { spell.map { $0.ran >= limit || $0.blocked >= limit } ?? false }

    /// How the app hung and on what, said for a person; nil while it has not.
    var verdict: String? {
        guard let spell, isPastLimit else { return nil }
        let how =
            spell.ran >= limit
            ? "the app ran for \(limit) of processor time without the story moving on"
            : "every thread of the app was blocked for \(limit) of wall time without the story moving on"
        return "\(how): \(spell.reason)"
    }

    /// Notes what keeps the clock waiting, and measures the stretch since the last look: the wait goes on
    /// from when it began, whatever keeps it.
    mutating func note(_ reason: String) {
        let (awake, processor) = (meter.awakeTime(), meter.processorTime())
        guard var spell else {
            spell = Spell(reason: reason, processorAtStart: processor, lastLook: (awake, processor))
            return
        }
        spell.reason = reason
        spell.ran = processor - spell.processorAtStart
        let stretch = awake - spell.lastLook.awake
        if stretch >= Self.shortestLook {
            // Blocked: next to nothing ran (a tenth of one processor: the harness's own looks), and nothing waits
            // for a processor now. A starved process has threads waiting for one; a deadlocked one has none.
            if processor - spell.lastLook.processor < stretch / 10 && !meter.anotherThreadCanRun() {
                spell.blocked += stretch
            }
            spell.lastLook = (awake, processor)
        }
        self.spell = spell
    }

    /// The story moved on: the wait is over.
    mutating func clear() { spell = nil }
}
