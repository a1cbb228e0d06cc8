/// What the frame handler itself cost: the whole of each frame (the script's
/// scrolling, which runs the lesson's `cellForRowAt`, plus the recording) and
/// the recording alone (snapshot, judging each visible row, the status line).
///
/// It is how the harness shows that it scales: a frame's work must grow with
/// the rows on screen, never with the rows in the catalog or the requests made.
struct FrameWork {
    private(set) var frames = 0
    private var totalMs = 0.0
    private var recordingMs = 0.0
    private(set) var maxMs = 0.0

    mutating func add(total: Duration, recording: Duration) {
        let total = total.milliseconds
        frames += 1
        totalMs += total
        recordingMs += recording.milliseconds
        maxMs = max(maxMs, total)
    }

    var meanMs: Double { frames == 0 ? 0 : totalMs / Double(frames) }
    var recordingMeanMs: Double { frames == 0 ? 0 : recordingMs / Double(frames) }
}

extension Duration {
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
