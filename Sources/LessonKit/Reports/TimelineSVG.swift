import Foundation
import SlowNetwork

/// Draws a run as an SVG timeline, one lane per thread under a lane for what
/// the user saw:
///
/// - **screen**: for every moment, how many visible rows showed their own icon,
///   the placeholder, nothing, or another row's icon (stacked, top to bottom);
///   a marker where every visible row first showed its own icon.
/// - **main queue**: red where it was blocked (a stall: no frame for more than
///   two refreshes), and any download made on it (step 1's mistake).
/// - **worker N**: the downloads that were the Nth under way at once (each
///   holds its thread while it waits), coloured by outcome; a red outline
///   marks a duplicate (started while the same URL was in flight).
///
/// Work recorded as spans (steps 8 and 9: operations, not downloads) is drawn
/// on the lane that ran it, named. A lane with nothing to show (no screen, for
/// a run without a table) is left out.
///
/// The script's events are dashed lines with their labels on top; the time
/// axis is the story's; a legend explains the colours. Hover a bar in a
/// browser for its URL, outcome and duration.
public enum TimelineSVG {
    private static let left = 150.0
    private static let plotWidth = 900.0
    private static let right = 30.0
    private static let screenHeight = 34.0
    private static let mainHeight = 30.0
    private static let font = "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""

    enum Palette {
        static let own = "#2ca02c"
        static let placeholder = "#c7c7c7"
        static let blank = "#ffffff"
        static let wrong = "#d62728"
        static let stall = "#f4a6a6"
        static let stallEdge = "#d62728"
        static let ok = "#4c9f50"
        static let broken = "#ff7f0e"
        static let failed = "#7f7f7f"
        static let cutOff = "#6baed6"
        static let duplicate = "#b00000"
        /// One colour per kind of operation, in the order the kinds first start.
        static let operationKinds = [
            "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f",
            "#d62728", "#393b79", "#637939",
        ]
        static let lane = "#f6f6f6"
        static let grid = "#e2e2e2"
        static let text = "#222222"
        static let muted = "#666666"
    }

    public static func render(_ timeline: Timeline) -> String {
        var canvas = Canvas(timeline: timeline)
        canvas.draw()
        return document(width: canvas.width, height: canvas.height, body: canvas.parts)
    }

    /// Two runs of one scenario (`lessons compare`), one above the other on
    /// one time axis, as long as the longer story: the same instant is at the
    /// same place in both, and the shorter run is greyed out after its end.
    /// One legend, under the second.
    public static func render(pair before: Timeline, _ after: Timeline) -> String {
        let axisMs = max(before.durationMs, after.durationMs)
        var top = Canvas(timeline: before, axisMs: axisMs, legend: false)
        top.draw()
        var bottom = Canvas(timeline: after, axisMs: axisMs, legend: true)
        bottom.draw()
        let body =
            top.parts + ["<g transform=\"translate(0 \(f(top.height)))\">"] + bottom.parts + ["</g>"]
        return document(width: top.width, height: top.height + bottom.height, body: body)
    }

    private static func document(width: Double, height: Double, body: [String]) -> String {
        ([
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" "
                + "viewBox=\"0 0 \(Int(width)) \(Int(height))\" \(font) font-size=\"11\" fill=\"\(Palette.text)\">"
        ] + body + ["</svg>"]).joined(separator: "\n") + "\n"
    }

    /// A request drawn as one bar, or a run of tiny requests drawn as one
    /// (an offline retry loop makes thousands of zero-length requests).
    struct Bar {
        var startMs: Double
        var endMs: Double
        var colour: String
        var duplicate: Bool
        var count: Int
        var title: String
    }

    // More than 12 stored properties: the picture's layout, worked out once before any part is drawn.
    private struct Canvas {
        let timeline: Timeline
        let workers: [String]
        /// The lane of each download that did not run on the main queue, by request id.
        let laneOf: [Int: String]
        let workerHeight: Double
        let scale: Double
        let eventRows: Int
        let eventRowOf: [Int]
        let duplicates: Set<Int>
        /// Each kind of operation and its colour, in the order the kinds first start.
        let kinds: [(kind: String, colour: String)]
        let kindColours: [String: String]
        var parts: [String] = []

        /// The story time the axis spans: the run's own, or a longer one shared with another run.
        let axisMs: Double
        let hasLegend: Bool

        init(timeline: Timeline, axisMs: Double? = nil, legend: Bool = true) {
            self.timeline = timeline
            let axisMs = max(axisMs ?? timeline.durationMs, timeline.durationMs)
            self.axisMs = axisMs
            hasLegend = legend
            laneOf = TimelineSVG.lanes(of: timeline.requests)
            workers = TimelineSVG.workerLanes(Array(laneOf.values) + timeline.spans.map(\.lane))
            workerHeight = workers.count > 10 ? 14 : 22
            scale = plotWidth / max(axisMs, 1)
            let eventXs = timeline.events.map { left + $0.ms * (plotWidth / max(axisMs, 1)) }
            (eventRowOf, eventRows) = TimelineSVG.stagger(eventXs, labels: timeline.events.map(\.label))
            duplicates = Set(timeline.requests.filter(\.isDuplicate).map(\.id))
            kinds = TimelineSVG.operationKinds(timeline.spans)
            kindColours = Dictionary(kinds.map { ($0.kind, $0.colour) }, uniquingKeysWith: { first, _ in first })
        }

        var headerHeight: Double { 58 }
        var eventsTop: Double { headerHeight }
        var lanesTop: Double { eventsTop + Double(eventRows) * 13 + 8 }
        var hasScreen: Bool { !timeline.screen.isEmpty }
        var screenTop: Double { lanesTop }
        var mainTop: Double { hasScreen ? screenTop + screenHeight + 6 : lanesTop }
        var workersTop: Double { mainTop + mainHeight + 6 }
        /// A run with no download or operation at all still gets one lane, to say so.
        var nothingRan: Bool { timeline.requests.isEmpty && timeline.spans.isEmpty }
        var lanesBottom: Double { workersTop + Double(nothingRan ? 1 : workers.count) * workerHeight }
        var axisY: Double { lanesBottom + 4 }
        var legendTop: Double { axisY + 50 }
        var height: Double { hasLegend ? legendTop + 36 : axisY + 40 }
        var width: Double { left + plotWidth + right }

        func x(_ ms: Double) -> Double { left + min(max(ms, 0), axisMs) * scale }

        mutating func draw() {
            parts.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>")
            parts.append(
                "<text x=\"14\" y=\"22\" font-size=\"15\" font-weight=\"bold\">\(escape(timeline.title))</text>")
            parts.append("<text x=\"14\" y=\"40\" fill=\"\(Palette.muted)\">\(escape(timeline.caption))</text>")
            drawLaneBackgrounds()
            drawGrid()
            drawScreen()
            drawMainQueue()
            drawWorkers()
            drawEvents()
            drawEnd()
            drawAxis()
            if hasLegend { drawLegend() }
        }

        mutating func drawLaneBackgrounds() {
            if hasScreen {
                let rows = timeline.screen.map(\.rows).max() ?? 0
                label("screen", detail: "\(rows) rows", top: screenTop, height: screenHeight)
                parts.append(rect(left, screenTop, plotWidth, screenHeight, fill: Palette.lane))
            }
            label("main queue", detail: nil, top: mainTop, height: mainHeight)
            parts.append(rect(left, mainTop, plotWidth, mainHeight, fill: Palette.lane))
            for (index, worker) in workers.enumerated() {
                let top = workersTop + Double(index) * workerHeight
                let count = laneOf.values.filter { $0 == worker }.count
                label(worker, detail: count > 0 ? "\(count)" : nil, top: top, height: workerHeight)
                if index % 2 == 0 { parts.append(rect(left, top, plotWidth, workerHeight, fill: Palette.lane)) }
            }
            if nothingRan {
                parts.append(
                    "<text x=\"\(left + 6)\" y=\"\(workersTop + 14)\" fill=\"\(Palette.muted)\">no downloads</text>")
            }
        }

        mutating func label(_ name: String, detail: String?, top: Double, height: Double) {
            let y = top + height / 2 + 4
            parts.append("<text x=\"14\" y=\"\(f(y))\">\(escape(name))</text>")
            if let detail {
                parts.append(
                    "<text x=\"\(left - 8)\" y=\"\(f(y))\" text-anchor=\"end\" fill=\"\(Palette.muted)\" font-size=\"10\">"
                        + "\(escape(detail))</text>")
            }
        }

        mutating func drawGrid() {
            for tick in TimelineSVG.ticks(axisMs) {
                parts.append(line(x(tick), lanesTop, x(tick), lanesBottom, stroke: Palette.grid))
            }
        }

        /// Stacked bars: own icon at the bottom, then placeholder, blank, wrong on top.
        mutating func drawScreen() {
            guard hasScreen else { return }
            let inner = screenHeight - 4
            for span in timeline.screen where span.rows > 0 {
                let x0 = x(span.startMs)
                let width = max(0.6, x(span.endMs) - x0)
                var y = screenTop + screenHeight - 2
                let layers = [
                    (span.own, Palette.own), (span.placeholder, Palette.placeholder), (span.blank, Palette.blank),
                    (span.wrong, Palette.wrong),
                ]
                for (count, colour) in layers where count > 0 {
                    let height = inner * Double(count) / Double(span.rows)
                    y -= height
                    parts.append(rect(x0, y, width, height, fill: colour))
                }
            }
            parts.append(
                "<rect x=\"\(left)\" y=\"\(f(screenTop + 2))\" width=\"\(plotWidth)\" height=\"\(f(inner))\" "
                    + "fill=\"none\" stroke=\"#bbbbbb\" stroke-width=\"0.6\"/>")
            if let ms = timeline.allVisibleMs {
                let markX = x(ms)
                let top = screenTop - 1
                parts.append(
                    "<path d=\"M\(f(markX - 5)) \(f(top - 7)) L\(f(markX + 5)) \(f(top - 7)) L\(f(markX)) \(f(top)) Z\" "
                        + "fill=\"\(Palette.own)\"><title>every visible row shows its own icon at "
                        + "\(Int(ms.rounded())) ms</title></path>")
            }
        }

        mutating func drawMainQueue() {
            for stall in timeline.stalls {
                let x0 = x(stall.startMs)
                let width = max(1, x(stall.endMs) - x0)
                // As FrameRecorder counts it: the gap between two frames, minus the one frame it should have been.
                let duration = Int((stall.endMs - stall.startMs - 1000 / 60).rounded())
                parts.append(
                    rect(
                        x0, mainTop + 1, width, mainHeight - 2, fill: Palette.stall,
                        extra: "stroke=\"\(Palette.stallEdge)\" stroke-width=\"0.8\"",
                        title: "main queue blocked \(duration) ms: no frame drawn"))
                if width > 44 {
                    parts.append(
                        "<text x=\"\(f(x0 + width / 2))\" y=\"\(f(mainTop + 11))\" text-anchor=\"middle\" "
                            + "font-size=\"9\" fill=\"\(Palette.stallEdge)\">\(duration) ms</text>")
                }
            }
            let onMain = timeline.requests.filter { $0.thread == Request.mainQueue }
            drawBars(onMain, top: mainTop + mainHeight - 13, height: 10)
            drawSpans(timeline.spans.filter { $0.lane == "main queue" }, top: mainTop + 4, height: mainHeight - 8)
        }

        mutating func drawWorkers() {
            for (index, worker) in workers.enumerated() {
                let top = workersTop + Double(index) * workerHeight
                drawBars(timeline.requests.filter { laneOf[$0.id] == worker }, top: top + 3, height: workerHeight - 6)
                drawSpans(timeline.spans.filter { $0.lane == worker }, top: top + 2, height: workerHeight - 4)
            }
        }

        /// Operations in their kind's colour, named when the bar is wide enough
        /// for the name (in smaller type if need be; the legend names every kind).
        mutating func drawSpans(_ spans: [Timeline.Span], top: Double, height: Double) {
            for span in spans {
                let x0 = x(span.startMs)
                let width = max(1.5, x(min(span.endMs, timeline.durationMs)) - x0)
                parts.append(
                    rect(
                        x0, top, width, height, fill: kindColours[span.kind] ?? Palette.operationKinds[0],
                        extra: "stroke=\"white\" stroke-width=\"0.5\"",
                        title: "\(span.name) (\(span.kind)) · \(span.lane) · \(Int((span.endMs - span.startMs).rounded())) ms"))
                guard let (label, size) = TimelineSVG.label(span.name, width: width) else { continue }
                parts.append(
                    "<text x=\"\(f(x0 + 2))\" y=\"\(f(top + height / 2 + size * 0.4))\" fill=\"white\" "
                        + "font-size=\"\(f(size))\">\(escape(label))</text>")
            }
        }

        mutating func drawBars(_ requests: [Request], top: Double, height: Double) {
            var bars: [Bar] = []
            for request in requests.sorted(by: { $0.startMs < $1.startMs }) {
                let end = request.endMs ?? timeline.durationMs
                let colour = TimelineSVG.colour(request)
                let duplicate = duplicates.contains(request.id)
                let title =
                    "\(request.url) · \(TimelineSVG.outcomeText(request)) · \(Int((end - request.startMs).rounded())) ms"
                    + (duplicate ? " · duplicate: the same URL was already in flight" : "")
                if var last = bars.last, last.colour == colour, last.duplicate == duplicate,
                    x(request.startMs) - x(last.endMs) < 1, x(end) - x(request.startMs) < 2
                {
                    last.endMs = max(last.endMs, end)
                    last.count += 1
                    last.title = "\(last.count) requests · \(TimelineSVG.outcomeText(request)) (last: \(request.url))"
                    bars[bars.count - 1] = last
                } else {
                    bars.append(
                        Bar(
                            startMs: request.startMs, endMs: end, colour: colour, duplicate: duplicate, count: 1,
                            title: title))
                }
            }
            for bar in bars {
                let x0 = x(bar.startMs)
                // A hair of white between back-to-back downloads keeps them apart.
                let width = max(1.2, x(bar.endMs) - x0 - (x(bar.endMs) - x0 > 4 ? 1 : 0))
                let outline = bar.duplicate ? "stroke=\"\(Palette.duplicate)\" stroke-width=\"1.6\"" : ""
                parts.append(rect(x0, top, width, height, fill: bar.colour, extra: outline, title: bar.title))
            }
        }

        mutating func drawEvents() {
            for (index, event) in timeline.events.enumerated() {
                let eventX = x(event.ms)
                let labelY = eventsTop + Double(eventRowOf[index]) * 13 + 9
                parts.append(
                    "<line x1=\"\(f(eventX))\" y1=\"\(f(labelY + 3))\" x2=\"\(f(eventX))\" y2=\"\(f(lanesBottom))\" "
                        + "stroke=\"#444444\" stroke-width=\"0.8\" stroke-dasharray=\"3,3\"/>")
                let endAnchored = TimelineSVG.labelExtent(x: eventX, label: event.label).endAnchored
                let anchor = endAnchored ? "end" : "start"
                let labelX = endAnchored ? eventX - 3 : eventX + 3
                parts.append(
                    "<text x=\"\(f(labelX))\" y=\"\(f(labelY))\" font-size=\"10\" text-anchor=\"\(anchor)\">"
                        + "\(escape(event.label))</text>")
            }
        }

        /// On an axis longer than the run (the other run of a pair went on),
        /// the time after its end is greyed out and its end said.
        mutating func drawEnd() {
            guard axisMs > timeline.durationMs else { return }
            let endX = x(timeline.durationMs)
            parts.append(
                rect(endX, lanesTop, left + plotWidth - endX, lanesBottom - lanesTop, fill: "#ffffff",
                    extra: "fill-opacity=\"0.75\""))
            parts.append(
                "<text x=\"\(f(endX + 6))\" y=\"\(f(lanesTop + 14))\" fill=\"\(Palette.muted)\">"
                    + "the story ended at \(TimelineSVG.seconds(timeline.durationMs, step: 100)) s</text>")
        }

        mutating func drawAxis() {
            parts.append(line(left, axisY, left + plotWidth, axisY, stroke: "#444444"))
            let ticks = TimelineSVG.ticks(axisMs)
            let step = ticks.count > 1 ? ticks[1] - ticks[0] : 1000
            for tick in ticks {
                parts.append(line(x(tick), axisY, x(tick), axisY + 5, stroke: "#444444"))
                parts.append(
                    "<text x=\"\(f(x(tick)))\" y=\"\(f(axisY + 17))\" text-anchor=\"middle\" font-size=\"10\">"
                        + "\(TimelineSVG.seconds(tick, step: step))</text>")
            }
            let clock = timeline.timeAxis
            parts.append(
                "<text x=\"\(f(left + plotWidth))\" y=\"\(f(axisY + 30))\" text-anchor=\"end\" font-size=\"10\" "
                    + "fill=\"\(Palette.muted)\">\(escape(clock))</text>")
        }

        mutating func drawLegend() {
            var groups: [(String, [(String, String, String)])] = [
                (
                    "screen",
                    [
                        (Palette.own, "", "own icon"), (Palette.placeholder, "", "placeholder"),
                        (Palette.blank, "stroke=\"#999999\"", "blank"), (Palette.wrong, "", "another row's icon"),
                    ]
                ),
                ("main queue", [(Palette.stall, "stroke=\"\(Palette.stallEdge)\"", "blocked (no frame)")]),
                (
                    "downloads",
                    [
                        (Palette.ok, "", "ok"), (Palette.broken, "", "corrupt"), (Palette.failed, "", "failed"),
                        (Palette.cutOff, "", "cut off at the end"),
                        ("#ffffff", "stroke=\"\(Palette.duplicate)\" stroke-width=\"1.6\"", "duplicate in flight"),
                    ]
                ),
            ]
            if !hasScreen { groups.removeAll { $0.0 == "screen" } }
            if !hasScreen && timeline.stalls.isEmpty { groups.removeAll { $0.0 == "main queue" } }
            if timeline.requests.isEmpty && !timeline.spans.isEmpty { groups.removeAll { $0.0 == "downloads" } }
            if !kinds.isEmpty { groups.append(("operations", kinds.map { ($0.colour, "", $0.kind) })) }
            var legendX = 14.0
            var legendY = legendTop
            for (group, entries) in groups {
                let groupWidth = entries.reduce(Double(group.count) * 7.4 + 10) { $0 + 27 + Double($1.2.count) * 6.1 }
                if legendX + groupWidth > width - 10 {
                    legendX = 14
                    legendY += 18
                }
                parts.append(
                    "<text x=\"\(f(legendX))\" y=\"\(f(legendY))\" font-weight=\"bold\">\(escape(group))</text>")
                legendX += Double(group.count) * 7.4 + 10
                for (fill, extra, text) in entries {
                    parts.append(rect(legendX, legendY - 9, 11, 11, fill: fill, extra: extra))
                    parts.append("<text x=\"\(f(legendX + 15))\" y=\"\(f(legendY))\">\(escape(text))</text>")
                    legendX += 15 + Double(text.count) * 6.1 + 12
                }
                legendX += 14
            }
        }
    }

    // MARK: helpers

    static func workerLanes(_ threads: [String]) -> [String] {
        let workers = Set(threads).subtracting(["main queue"])
        return workers.sorted {
            (Int($0.split(separator: " ").last ?? "") ?? 0, $0) < (Int($1.split(separator: " ").last ?? "") ?? 0, $1)
        }
    }

    /// Puts each download not made on the main queue on the first worker lane
    /// free when it starts, in story order: lane N holds the Nth download under
    /// way at once. (Threads that start downloads together log them in any
    /// order; the picture must not depend on it.) A fetch that blocks no thread
    /// (`SlowNetwork.fetch`) is drawn on a "fetch" lane: no thread waits there.
    static func lanes(of requests: [Request]) -> [Int: String] {
        var laneEnds: [Double] = []
        var lanes: [Int: String] = [:]
        let inStoryOrder = requests.filter { $0.thread != Request.mainQueue }.sorted {
            ($0.startMs, $0.url, $0.endMs ?? .infinity) < ($1.startMs, $1.url, $1.endMs ?? .infinity)
        }
        for request in inStoryOrder {
            let end = request.endMs ?? .infinity
            let kind = request.thread == Request.noThread ? "fetch" : "worker"
            if let free = laneEnds.firstIndex(where: { $0 <= request.startMs }) {
                laneEnds[free] = end
                lanes[request.id] = "\(kind) \(free + 1)"
            } else {
                laneEnds.append(end)
                lanes[request.id] = "\(kind) \(laneEnds.count)"
            }
        }
        return lanes
    }

    /// Each kind of operation gets the next colour of the palette, in the
    /// order the kinds first start (the palette starts over past its end).
    static func operationKinds(_ spans: [Timeline.Span]) -> [(kind: String, colour: String)] {
        var kinds: [(kind: String, colour: String)] = []
        for span in spans.sorted(by: { ($0.startMs, $0.kind) < ($1.startMs, $1.kind) })
        where !kinds.contains(where: { $0.kind == span.kind }) {
            kinds.append((span.kind, Palette.operationKinds[kinds.count % Palette.operationKinds.count]))
        }
        return kinds
    }

    /// What fits of an operation's name in a bar `width` wide, and its type
    /// size: the name at 10 or 8, else its last word ("block 3" → "3", the
    /// legend says the kind); nil when nothing fits.
    static func label(_ name: String, width: Double) -> (text: String, size: Double)? {
        let lastWord = name.split(separator: " ").last.map(String.init)
        let candidates = [name] + (lastWord.map { $0 == name ? [] : [$0] } ?? [])
        for text in candidates {
            if let size = [10.0, 8].first(where: { width >= Double(text.count) * $0 * 0.6 + 4 }) { return (text, size) }
        }
        return nil
    }

    static func colour(_ request: Request) -> String {
        switch request.outcome {
        case .ok: Palette.ok
        case .corrupt, .truncated: Palette.broken
        case .inFlight: Palette.cutOff
        case .failed: request.error == NetworkError.shutDown.description ? Palette.cutOff : Palette.failed
        }
    }

    static func outcomeText(_ request: Request) -> String {
        switch request.outcome {
        case .failed: "failed: \(request.error ?? "unknown")"
        case .inFlight: "still in flight"
        default: request.outcome.rawValue
        }
    }

    /// Assigns each label a row so that labels on one row do not overlap.
    static func stagger(_ xs: [Double], labels: [String]) -> (rows: [Int], count: Int) {
        var placed: [[ClosedRange<Double>]] = []
        var rows: [Int] = []
        for (x, label) in zip(xs, labels) {
            let extent = labelExtent(x: x, label: label).span
            if let row = placed.firstIndex(where: { $0.allSatisfy { !$0.overlaps(extent) } }) {
                rows.append(row)
                placed[row].append(extent)
            } else {
                rows.append(placed.count)
                placed.append([extent])
            }
        }
        return (rows, max(1, placed.count))
    }

    /// Where an event's label goes: to the right of its line, or to the left
    /// near the right edge; and the stretch it covers (10 px type, with a margin).
    static func labelExtent(x: Double, label: String) -> (span: ClosedRange<Double>, endAnchored: Bool) {
        let width = Double(label.count) * 6 + 8
        let endAnchored = x + width > left + plotWidth + right - 4
        return endAnchored ? (x - width...x, true) : (x...x + width, false)
    }

    static func ticks(_ durationMs: Double) -> [Double] {
        let step =
            [100.0, 200, 250, 500, 1000, 2000, 2500, 5000, 10000, 20000, 30000, 60000].first {
                durationMs / $0 <= 12
            } ?? 120_000
        return stride(from: 0, through: durationMs, by: step).map { $0 }
    }

    /// A tick's label in seconds, with as many decimals as the step needs for
    /// every label to be its tick's true value (2.5 s steps: "2.5", not "2").
    static func seconds(_ ms: Double, step: Double) -> String {
        let decimals = (0...2).first { step.truncatingRemainder(dividingBy: 1000 / pow(10, Double($0))) == 0 } ?? 3
        return String(format: "%.\(decimals)f", ms / 1000)
    }

    private static func rect(
        _ x: Double, _ y: Double, _ width: Double, _ height: Double, fill: String, extra: String = "",
        title: String? = nil
    ) -> String {
        let shape =
            "x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(width))\" height=\"\(f(height))\" fill=\"\(fill)\""
            + (extra.isEmpty ? "" : " " + extra)
        guard let title else { return "<rect \(shape)/>" }
        return "<rect \(shape)><title>\(escape(title))</title></rect>"
    }

    private static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String) -> String {
        "<line x1=\"\(f(x1))\" y1=\"\(f(y1))\" x2=\"\(f(x2))\" y2=\"\(f(y2))\" stroke=\"\(stroke)\" stroke-width=\"0.8\"/>"
    }

    /// Two decimals are plenty for a picture, and keep the file small.
    private static func f(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
