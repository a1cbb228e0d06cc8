#!/usr/bin/env python3
"""The course's web site, checked in a real browser (Chromium, headless, driven over its debugging pipe).

The site's root leads to the table of contents. For every tutorial page that `lessons site` wrote expectations for
(site-check.json): each step's text; for a code step, scrolled to as a reader scrolls, the file the code pane shows
and the lines it highlights; the timeline picture loaded; each quiz question answered wrong (marked wrong, its explanation shown), then right (marked
right), to its end. One screenshot per page goes to the screenshot folder, taken at the middle step of the fix with
its highlighted lines in view (a page whose lines cannot be brought into view fails). Python's standard library only.

usage: site-check.py URL EXPECTATIONS.json SCREENSHOTS_DIR [PAGE…]
  URL: where the site is served (http://127.0.0.1:8642/); PAGE: only these pages (step05)
Exit status: 0 every check passed; 1 a check failed (each failure printed); 2 the browser could not be driven.
"""
import base64, json, os, shutil, subprocess, sys, time

CODE_PANE = """(code) => [...document.querySelectorAll('.code-listing[identifier]')].filter(e =>
    e.getAttribute('identifier') === code && !e.classList.contains('full-code-listing')
    && !e.classList.contains('code-listing-preview') && e.offsetParent !== null)"""


class Browser:
    """Chromium over --remote-debugging-pipe: JSON messages, each ended by a NUL byte, on fds 3 (in) and 4 (out)."""

    def __init__(self):
        binary = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
        if binary is None:
            raise SystemExit("site-check: no chromium on the PATH (apt-get install chromium)")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def wire():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.process = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
             "--remote-debugging-pipe", "--hide-scrollbars", "--window-size=1280,900", "about:blank"],
            pass_fds=(3, 4), preexec_fn=wire, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b""
        self.next_id = 0
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}, page=True)

    def send(self, method, params=None, page=False):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if page:
            message["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self.buffer:
                chunk = os.read(self.from_chrome, 1 << 16)
                if not chunk:
                    raise SystemExit("site-check: chromium went away")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def js(self, expression):
        result = self.send("Runtime.evaluate",
                           {"expression": expression, "returnByValue": True, "awaitPromise": True}, page=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"script failed: {result['exceptionDetails'].get('text')}: {expression[:80]}")
        return result["result"].get("value")

    def wait_for(self, expression, seconds=10.0):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.1)
        return None

    def wheel_to(self, selector, index, top):
        """Scrolls with the mouse wheel, as a reader does, until element `index` of `selector` starts at `top`."""
        at = self.js(f"document.querySelectorAll({json.dumps(selector)})[{index}].getBoundingClientRect().top")
        self.send("Input.dispatchMouseEvent",
                  {"type": "mouseWheel", "x": 320, "y": 450, "deltaX": 0, "deltaY": at - top}, page=True)

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", {"format": "png"}, page=True)["data"]
        with open(path, "wb") as file:
            file.write(base64.b64decode(data))

    def close(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def words(text):
    """What a reader reads: spaces collapsed, and DocC's typographic apostrophes and quotes as typed."""
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return " ".join(text.split())


def check_page(browser, base, page, shots, failures, counts):
    name = page["path"].strip("/").split("/")[-1]

    def fail(message):
        failures.append(f"{name}: {message}")

    browser.send("Page.navigate", {"url": base + page["path"]}, page=True)
    want = len(page["steps"])
    if not browser.wait_for(f"document.querySelectorAll('.step').length === {want}", 20):
        found = browser.js("document.querySelectorAll('.step').length")
        fail(f"{found} steps on the page, {want} expected")
        return
    counts["pages"] += 1
    title = browser.js("(document.querySelector('h1') || {innerText: ''}).innerText")
    if words(title) != words(page["title"]):
        fail(f"title {title!r}, expected {page['title']!r}")

    # The picture, in the first step: loaded, not a broken image.
    browser.wheel_to(".step", 0, 440)
    picture = browser.wait_for(
        f"[...document.images].some(i => i.src.includes({json.dumps(page['timeline'])}) && i.complete && i.naturalWidth > 0)",
        10)
    if picture:
        counts["pictures"] += 1
    else:
        fail(f"the timeline {page['timeline']} is not shown")

    # The screenshot a person opens: the middle step of the fix (else the bug's step), its highlight in view.
    coded = [i for i, s in enumerate(page["steps"]) if s.get("code") and s["highlighted"]]
    walked = [i for i in coded if "-bug-" not in page["steps"][i]["code"]] or coded
    shot_at = walked[len(walked) // 2] if walked else None
    for index, step in enumerate(page["steps"]):
        text = browser.js(f"document.querySelectorAll('.step')[{index}].innerText.replace(/^\\s*Step \\d+\\s*/, '')")
        if not words(text or "").startswith(words(step["text"])[:60]):
            fail(f"step {index + 1} reads {words(text or '')[:60]!r}, expected {words(step['text'])[:60]!r}")
        counts["steps"] += 1
        if not step.get('code'):
            continue
        # The code pane follows the step a reader scrolls to: it switches as the step moves up past a third of the
        # window, so the wheel moves the page a little at a time, as a reader's does.
        pane = f"({CODE_PANE})({json.dumps(step['code'])}).length > 0"
        top = f"document.querySelectorAll('.step')[{index}].getBoundingClientRect().top"
        shown = None
        for start, stride in ((520, 50), (600, 25)):
            browser.wheel_to(".step", index, start)
            shown = browser.wait_for(pane, 0.3)
            while not shown and browser.js(top) > -60:
                browser.send("Input.dispatchMouseEvent",
                             {"type": "mouseWheel", "x": 320, "y": 450, "deltaX": 0, "deltaY": stride}, page=True)
                shown = browser.wait_for(pane, 0.5)
            if shown:
                break
        if not shown:
            fail(f"step {index + 1}: the code pane never shows {step['code']}")
            if index == shot_at:
                browser.screenshot(os.path.join(shots, f"{name}.png"))
            continue
        highlighted = f"[...({CODE_PANE})({json.dumps(step['code'])})[0].querySelectorAll('.code-line-container.highlighted')]"
        lines = browser.js(f"{highlighted}.map(n => Number(n.querySelector('.code-number').dataset.lineNumber))")
        texts = browser.js(f"{highlighted}.map(n => n.querySelector('.code-line').textContent)")
        # DocC finds the added lines with a diff of its own, which may take an identical line (a `}`, a blank) a
        # few lines away from ours: the same lines, read the same.
        same_text = sorted(t.strip() for t in texts) == sorted(t.strip() for t in step["highlightedText"])
        if lines != step["highlighted"] and not same_text:
            fail(f"step {index + 1} ({step['code']}): highlighted lines {lines}, expected {step['highlighted']} "
                 f"(texts {[t.strip() for t in texts][:3]}, expected {[t.strip() for t in step['highlightedText']][:3]})")
        else:
            counts["highlights"] += 1
        if index == shot_at:
            # DocC leaves the pane at the file's top; a reader scrolls it to the highlighted lines, and so does this.
            # The box that scrolls is the pane around the listing (`.code-preview`), not the page.
            browser.js(f"""(() => {{ const line = {highlighted}[0];
                let box = line.parentElement;
                while (box && box !== document.body
                    && !(box.scrollHeight > box.clientHeight + 4 && ['auto', 'scroll'].includes(getComputedStyle(box).overflowY)))
                    box = box.parentElement;
                if (box && box !== document.body)
                    box.scrollTop += line.getBoundingClientRect().top - box.getBoundingClientRect().top - 80; }})()""")
            in_view = f"""(() => {{ const r = {highlighted}[0].getBoundingClientRect();
                return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }})()"""
            if not browser.wait_for(in_view, 1):
                # A section of one step leaves its pane partly below the window: the page comes up to the lines.
                browser.js(f"window.scrollBy(0, {highlighted}[0].getBoundingClientRect().top - 300)")
            in_view = browser.wait_for(in_view, 3)
            if not in_view:
                fail(f"step {index + 1} ({step['code']}): its highlighted lines are not in view for the screenshot")
            # The step's card takes its focus a moment after the pane switches, and fades in: the picture waits.
            browser.wait_for(f"document.querySelectorAll('.step')[{index}].classList.contains('focused')", 2)
            time.sleep(0.5)
            browser.screenshot(os.path.join(shots, f"{name}.png"))
    if shot_at is None:
        browser.screenshot(os.path.join(shots, f"{name}.png"))

    # The quiz, wrong then right, to its end.
    for number, question in enumerate(page["quiz"]):
        quiz = "document.querySelector('.assessments .quiz')"
        browser.js(f"{quiz}.scrollIntoView({{block: 'center'}})")
        asked = browser.wait_for(f"{quiz} && {quiz}.querySelector('.title').innerText", 5) or ""
        if words(asked) != words(question["question"]):
            fail(f"question {number + 1} reads {words(asked)[:60]!r}, expected {question['question'][:60]!r}")
            return
        choices = browser.js(f"[...{quiz}.querySelectorAll('.choice')].map(c => c.innerText)")
        if [words(c) for c in choices] != [words(c) for c in question["choices"]]:
            fail(f"question {number + 1}: answers {choices}, expected {question['choices']}")
            return
        wrong = next(i for i in range(len(choices)) if i != question["correct"])
        for pick, verdict in ((wrong, "incorrect"), (question["correct"], "correct")):
            browser.js(f"{quiz}.querySelectorAll('.choice input')[{pick}].click()")
            browser.js(f"{quiz}.querySelector('button.check').click()")
            marked = browser.wait_for(
                f"{quiz}.querySelectorAll('.choice')[{pick}].classList.contains({json.dumps(verdict)})", 3)
            if not marked:
                classes = browser.js(f"{quiz}.querySelectorAll('.choice')[{pick}].className")
                fail(f"question {number + 1}: answer {pick + 1} is not marked {verdict} (its classes: {classes})")
                return
            explained = browser.js(f"{quiz}.querySelectorAll('.choice')[{pick}].innerText")
            if words(explained) == words(question["choices"][pick]):
                fail(f"question {number + 1}: answer {pick + 1} chosen, but no explanation shown")
        counts["questions"] += 1
        if number + 1 < len(page["quiz"]):
            browser.js(f"{quiz}.querySelector('button.next').click()")
            if not browser.wait_for(f"{quiz} && {quiz}.querySelector('.title').innerText !== {json.dumps(asked)}", 5):
                fail(f"question {number + 1}: Next question does not lead on")
                return


def main():
    if len(sys.argv) < 4:
        print(__doc__.strip().split("\n\n")[-2], file=sys.stderr)
        return 2
    base, expectations, shots, only = sys.argv[1].rstrip("/") + "/", sys.argv[2], sys.argv[3], sys.argv[4:]
    with open(expectations) as file:
        pages = [p for p in json.load(file)["pages"] if not only or p["path"].strip("/").split("/")[-1] in only]
    os.makedirs(shots, exist_ok=True)
    started = time.monotonic()
    browser = Browser()
    failures = []
    counts = {"pages": 0, "steps": 0, "highlights": 0, "pictures": 0, "questions": 0}
    try:
        # The site's root: DocC's app finds no page at `/`, so `lessons site` writes one that leads to the contents.
        browser.send("Page.navigate", {"url": base}, page=True)
        if not browser.wait_for("location.pathname.endsWith('/tutorials/course/') "
                                "&& document.querySelectorAll('.chapter, .volume, h1').length > 0", 20):
            failures.append(f"root: {base} does not lead to the table of contents "
                            f"(at {browser.js('location.pathname')})")
        for page in pages:
            check_page(browser, base, page, shots, failures, counts)
    finally:
        browser.close()
    for failure in failures:
        print(f"site-check: {failure}", file=sys.stderr)
    print(f"site-check: {counts['pages']} of {len(pages)} pages, {counts['steps']} steps, {counts['highlights']} code "
          f"panes with their highlights, {counts['pictures']} pictures, {counts['questions']} questions answered "
          f"wrong then right; {len(failures)} failures; {time.monotonic() - started:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
