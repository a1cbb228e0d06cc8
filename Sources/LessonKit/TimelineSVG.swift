import Foundation
import SlowNetwork

/// Draws a run as an SVG timeline: a lane for the main queue (its stalls, and
/// any request made on it), a lane per worker thread (its requests, coloured by
/// outcome, and its operations), the script's events as vertical lines, a time
/// axis and a legend.
public enum TimelineSVG {
    private static let laneHeight = 26.0
    private static let left = 110.0
    private static let plotWidth = 860.0

    public static func render(_ timeline: Timeline) -> String {
        let lanes = ["main queue"] + workerLanes(timeline.requests.map(\.thread) + timeline.spans.map(\.lane))
        let top = 48.0
        let height = top + Double(lanes.count) * laneHeight + 70
        let scale = plotWidth / max(timeline.durationMs, 1)
        func x(_ ms: Double) -> Double { left + min(max(ms, 0), timeline.durationMs) * scale }
        func y(_ lane: String) -> Double { top + Double(lanes.firstIndex(of: lane) ?? 0) * laneHeight }

        var svg = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(left + plotWidth + 20))\" height=\"\(Int(height))\" font-family=\"monospace\" font-size=\"11\">",
            "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>",
            "<text x=\"10\" y=\"20\" font-size=\"14\">\(escape(timeline.title))</text>",
        ]
        for (index, lane) in lanes.enumerated() {
            let laneY = top + Double(index) * laneHeight
            if index % 2 == 0 {
                svg.append(rect(left, laneY, plotWidth, laneHeight, fill: "#f4f4f4"))
            }
            svg.append("<text x=\"10\" y=\"\(laneY + 17)\">\(escape(lane))</text>")
        }
        for stall in timeline.stalls {
            svg.append(
                rect(
                    x(stall.startMs), y("main queue") + 3, max(1, (stall.endMs - stall.startMs) * scale), laneHeight - 6,
                    fill: "#d62728", title: "main queue blocked \(Int(stall.endMs - stall.startMs)) ms"))
        }
        for request in timeline.requests {
            let end = request.endMs ?? timeline.durationMs
            let lane = request.thread == "main queue" ? "main queue" : request.thread
            let laneY = y(lane) + (lane == "main queue" ? 8 : 5)
            svg.append(
                rect(
                    x(request.startMs), laneY, max(1.5, (end - request.startMs) * scale), laneHeight - (lane == "main queue" ? 16 : 10),
                    fill: color(request.outcome),
                    title: "\(request.url) · \(request.outcome.rawValue) · \(Int(end - request.startMs)) ms"))
        }
        for span in timeline.spans {
            let width = max(1.5, (min(span.endMs, timeline.durationMs) - span.startMs) * scale)
            // A white edge keeps back-to-back operations on one thread apart.
            let spanX = x(span.startMs)
            let spanY = y(span.lane)
            svg.append(
                "<rect x=\"\(spanX)\" y=\"\(spanY + 4)\" width=\"\(width)\" height=\"\(laneHeight - 8)\""
                    + " fill=\"\(operationColor)\" stroke=\"white\" stroke-width=\"0.5\"><title>"
                    + escape("\(span.name) · \(span.lane) · \(Int(span.endMs - span.startMs)) ms") + "</title></rect>")
            if width >= Double(span.name.count) * 6.6 + 4 {
                svg.append("<text x=\"\(spanX + 2)\" y=\"\(spanY + 17)\" fill=\"white\">\(escape(span.name))</text>")
            }
        }
        let bottom = top + Double(lanes.count) * laneHeight
        for event in timeline.events {
            let eventX = x(event.ms)
            svg.append(
                "<line x1=\"\(eventX)\" y1=\"\(top - 4)\" x2=\"\(eventX)\" y2=\"\(bottom)\" stroke=\"#555\" stroke-dasharray=\"3,3\"/>")
            svg.append(
                "<text x=\"\(eventX + 2)\" y=\"\(top - 8)\" font-size=\"9\" transform=\"rotate(-20 \(eventX + 2) \(top - 8))\">\(escape(event.label))</text>"
            )
        }
        let step = tickStep(timeline.durationMs)
        var tick = 0.0
        while tick <= timeline.durationMs {
            svg.append("<line x1=\"\(x(tick))\" y1=\"\(bottom)\" x2=\"\(x(tick))\" y2=\"\(bottom + 5)\" stroke=\"black\"/>")
            svg.append("<text x=\"\(x(tick) - 8)\" y=\"\(bottom + 17)\">\(tick / 1000 == (tick / 1000).rounded() ? String(Int(tick / 1000)) : String(format: "%.1f", tick / 1000)) s</text>")
            tick += step
        }
        let legendY = bottom + 40
        let networkLegend: [(String, String)] = [
            ("#d62728", "main queue blocked (stall)"), ("#2ca02c", "download ok"), ("#ff7f0e", "corrupt / truncated"),
            ("#7f7f7f", "failed"), ("#1f77b4", "still in flight at the end"),
        ]
        // A run of operations alone (steps 8 and 9) has no network to explain.
        let legend =
            (timeline.spans.isEmpty || !timeline.requests.isEmpty ? networkLegend : [])
            + (timeline.spans.isEmpty ? [] : [(operationColor, "operation")])
        var legendX = left
        for (fill, label) in legend {
            svg.append(rect(legendX, legendY - 9, 12, 12, fill: fill))
            svg.append("<text x=\"\(legendX + 16)\" y=\"\(legendY + 1)\">\(label)</text>")
            legendX += 26 + Double(label.count) * 6.6
        }
        svg.append("</svg>")
        return svg.joined(separator: "\n") + "\n"
    }

    private static let operationColor = "#9467bd"

    private static func workerLanes(_ threads: [String]) -> [String] {
        let workers = Set(threads).subtracting(["main queue"])
        return workers.sorted { (Int($0.split(separator: " ").last ?? "") ?? 0) < (Int($1.split(separator: " ").last ?? "") ?? 0) }
    }

    private static func color(_ outcome: Request.Outcome) -> String {
        switch outcome {
        case .ok: "#2ca02c"
        case .corrupt, .truncated: "#ff7f0e"
        case .failed: "#7f7f7f"
        case .inFlight: "#1f77b4"
        }
    }

    private static func tickStep(_ durationMs: Double) -> Double {
        for step in [100.0, 250, 500, 1000, 2000, 5000, 10000, 20000] where durationMs / step <= 12 { return step }
        return 60000
    }

    private static func rect(_ x: Double, _ y: Double, _ width: Double, _ height: Double, fill: String, title: String? = nil) -> String {
        let shape = "x=\"\(x)\" y=\"\(y)\" width=\"\(width)\" height=\"\(height)\" fill=\"\(fill)\""
        guard let title else { return "<rect \(shape)/>" }
        return "<rect \(shape)><title>\(escape(title))</title></rect>"
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
