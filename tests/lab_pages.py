"""The browser test's machinery: JupyterLab and Voila on loopback, Debian's Chromium driven by Playwright, a chapter
opened and run as a reader would, and full-page screenshots."""

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from conftest import require

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic", "--disable-dev-shm-usage"]
# Turn off JupyterLab's news and update checks: this machine has no internet, and their toast covers the page.
# Attach every cell, so the page's text and a full-page screenshot hold the whole chapter.
QUIET_SETTINGS = {"@jupyterlab/apputils-extension/notification.jupyterlab-settings":
                  {"checkForUpdates": False, "fetchNews": "false"},
                  "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"}}
READING = {"width": 1400, "height": 1000}
SCREENSHOTS = Path(os.environ.get("LLMEST_SCREENSHOTS", ROOT / "build" / "screenshots"))
# A widget's plain-text form, shown where the widget cannot be: "VBox(children=(HTML(value='<b>Exercise ...".
RAW_WIDGET = re.compile(r"\b[A-Z]\w*\((?:children|value|description|layout|options)=")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def lab_server(work_dir: Path):
    """A JupyterLab server on loopback over a copy of the student notebooks; yields its URL."""
    notebooks = shutil.copytree(NOTEBOOKS, work_dir / "notebooks")
    settings = work_dir / "settings"
    for name, values in QUIET_SETTINGS.items():
        (settings / name).parent.mkdir(parents=True, exist_ok=True)
        (settings / name).write_text(json.dumps(values))
    # Notebook signatures live in the Jupyter data folder: a fresh one per run, as on a new reader's machine.
    env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(settings), JUPYTERLAB_WORKSPACES_DIR=str(work_dir / "ws"),
               JUPYTER_DATA_DIR=str(work_dir / "data"))
    jupyter = Path(sys.executable).parent / "jupyter"
    subprocess.run([str(jupyter), "trust", *map(str, sorted(notebooks.rglob("*.ipynb")))], env=env, check=True,
                   capture_output=True)  # what make lab does before it opens them
    with _serve(["-m", "jupyterlab", "--no-browser", "--allow-root", "--ip", "127.0.0.1", "--IdentityProvider.token=",
                 "--ServerApp.password=", f"--ServerApp.root_dir={work_dir / 'notebooks'}"], "/api/status",
                "JupyterLab", env) as url:
        yield url


@contextlib.contextmanager
def voila_server():
    """The calculator app served by Voila on loopback; yields its URL."""
    app = ROOT / "llmest" / "surfaces" / "app" / "llmest-calculators.ipynb"
    # The probe asks for a path Voila answers without running the notebook: probing "/" renders the whole page
    # each time, and on a busy machine every probe that times out leaves one more render running.
    with _serve(["-m", "voila", str(app), "--no-browser", "--Voila.ip=127.0.0.1"], "/voila/static/", "Voila",
                dict(os.environ)) as url:
        yield url


@contextlib.contextmanager
def _serve(args, probe: str, name: str, env):
    """Start ``python ARGS --port PORT`` on loopback and wait until ``probe`` answers."""
    port = _free_port()
    server = subprocess.Popen([sys.executable, *args, "--port", str(port)], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}{probe}", timeout=1)
                break
            except urllib.error.HTTPError:
                break   # the server answered, if only to refuse the path: it is up
            except OSError:
                time.sleep(0.5)
        else:
            raise RuntimeError(f"{name} did not start within 60 s")
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


@contextlib.contextmanager
def chromium():
    """Debian's Chromium driven by Playwright."""
    playwright = require("playwright.sync_api")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def menu(page, menu: str, item: str):
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{re.escape(menu)}$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(item)}$")).click()


def open_chapter(browser, url: str, notebook: str, widget: str | None = None):
    """A new page with a chapter open and every cell run, and what the page showed before anything ran.
    ``widget``: a selector inside the chapter's main widget."""
    page = browser.new_page(viewport=READING)
    page.set_default_timeout(60_000)
    page.goto(f"{url}/lab/tree/{notebook}?reset")
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
    page.get_by_text("| Idle").first.wait_for(timeout=120_000)  # the kernel is connected, not only starting
    # A stored widget's error takes a moment (the widget manager asks the new kernel for its models first): give
    # whatever the opening shows 5 s to appear, and stop waiting as soon as it does.
    with contextlib.suppress(require("playwright.sync_api").TimeoutError):
        page.wait_for_function("(raw) => { const t = document.querySelector('.jp-Notebook').textContent;"
                               " return t.includes('Error displaying widget') || new RegExp(raw).test(t); }",
                               arg=RAW_WIDGET.pattern, timeout=5_000)
    on_open = page.locator(".jp-Notebook").text_content()
    menu(page, "Edit", "Clear Outputs of All Cells")  # so that the stored outputs cannot pass for new ones
    # Clearing the outputs clears the prompts' counts: a count on the last code cell means every cell has run.
    prompt = "[...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')].{}.textContent"
    first_ran = f"() => /\\[\\d+\\]/.test({prompt.format('shift()')})"
    last_ran = f"() => /\\[\\d+\\]/.test({prompt.format('pop()')})"
    page.wait_for_function(f"() => !({last_ran})()")
    try:
        for attempt in range(3):
            # A Run All sent while the kernel is still settling is sometimes dropped: the cells stay unrun. Retry
            # (only then: a second Run All while the first runs would run the chapter twice).
            menu(page, "Run", "Run All Cells")
            try:
                page.wait_for_function(first_ran, timeout=60_000)
                break
            except Exception:
                print(f"{notebook}: Run All attempt {attempt + 1} did not start; retrying")
        page.wait_for_function(last_ran, timeout=600_000, polling=500)
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']")
        if widget:
            page.wait_for_selector(widget, state="attached")
    except Exception:
        print(f"screenshot of the failed page: {screenshot(page, f'failed-{notebook}')}")
        raise
    return page, on_open


SCROLL_TO_TOP = """() => {
    const outer = document.querySelector('.jp-WindowedPanel-outer'), cells = document.querySelectorAll('.jp-Cell');
    if (!outer || !cells.length) return 0;
    const end = cells[cells.length - 1].getBoundingClientRect().bottom + outer.scrollTop;
    outer.scrollTop = 0;
    return Math.ceil(end + 60);
}"""


def screenshot(page, name: str) -> Path:
    """The whole chapter: the page grown to the notebook's height, since the notebook scrolls inside it."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    # From the page's top to the last cell's end (the notebook pads its end so it can scroll past it).
    height = page.evaluate(SCROLL_TO_TOP)
    page.set_viewport_size({"width": READING["width"], "height": min(max(height, READING["height"]), 30_000)})
    page.evaluate(SCROLL_TO_TOP)
    page.wait_for_timeout(500)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(READING)
    return path


# Draws each Chinese character of the elements a selector finds and a code point no font has (U+0378) on a canvas in
# the element's font: a character drawn exactly like that one is the missing-glyph box, whatever font the page fell
# back to.
HEADINGS = ".jp-MarkdownOutput h1, .jp-MarkdownOutput h2"
CHINESE_TEXT = (".jp-MarkdownOutput h1, .jp-MarkdownOutput h2, .jp-MarkdownOutput h3, .jp-MarkdownOutput p, "
                ".jp-MarkdownOutput li, .jp-MarkdownOutput td, .llmest-exercise, .jupyter-button, .widget-label, "
                ".jp-OutputArea-output pre")
BOXED_CHARACTERS = """(selector) => {
    const headings = [...document.querySelectorAll(selector)]
        .filter(h => /[\u4e00-\u9fff]/.test(h.textContent));
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 80;
    const ctx = canvas.getContext('2d', {willReadFrequently: true});
    const ink = (ch) => {
        ctx.clearRect(0, 0, 80, 80);
        ctx.fillText(ch, 8, 60);
        return ctx.getImageData(0, 0, 80, 80).data.join(',');
    };
    const boxed = new Set(), drawn = new Set();
    for (const h of headings) {
        ctx.font = `48px ${getComputedStyle(h).fontFamily}`;
        const box = ink('\u0378');
        for (const ch of h.textContent.match(/[\u4e00-\u9fff]/g)) {
            drawn.add(ch);
            if (ink(ch) === box) boxed.add(ch);
        }
    }
    return {headings: headings.length, drawn: drawn.size, boxed: [...boxed].join('')};
}"""


# What sticks out past the window's right edge, for the message: the deepest such elements, by class.
WIDER_THAN_THE_WINDOW = """() => [...document.querySelectorAll('body *')]
    .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.querySelector('*'))
    .slice(0, 8).map(e => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}`
                          + ` right=${Math.round(e.getBoundingClientRect().right)}`)"""


def open_unrun(browser, url: str, notebook: str):
    """A new page with a chapter as a reader first finds it: nothing run, its prose and stored outputs rendered."""
    page = browser.new_page(viewport=READING)
    page.set_default_timeout(60_000)
    page.goto(f"{url}/lab/tree/{notebook}?reset")
    page.wait_for_selector(".jp-Notebook .jp-MarkdownCell .jp-RenderedMarkdown")
    return page


# Whether MathJax is done with the page: the stored LaTeX outputs typeset (at least ``latex`` of them), and the cells
# ``money`` (their indices) rid of MathJax's escape \$, which it turns into a plain $ as it reads a cell.
TYPESET = """([money, latex]) => {
    const cells = document.querySelectorAll('.jp-Notebook .jp-Cell');
    const shown = (i) => cells[i] && cells[i].querySelector('.jp-RenderedMarkdown');
    return document.querySelectorAll('.jp-RenderedLatex mjx-container').length >= latex
        && money.every(i => shown(i) && !shown(i).textContent.includes('\\\\$'));
}"""
# For each cell index: the formulas MathJax typeset in its rendered Markdown, and the dollar signs left as text.
MARKDOWN_MATH = """(indices) => {
    const cells = document.querySelectorAll('.jp-Notebook .jp-Cell');
    return indices.map(i => {
        const shown = cells[i].querySelector('.jp-RenderedMarkdown');
        return {formulas: shown.querySelectorAll('mjx-container').length,
                dollars: (shown.textContent.match(/\\$/g) || []).length,
                text: shown.textContent.slice(0, 300)};
    });
}"""
# The first cell's paragraph holding ``words``: its text, and whether the opened page shows it without scrolling.
ON_THE_FIRST_SCREEN = """(words) => {
    const first = document.querySelector('.jp-Notebook .jp-Cell .jp-RenderedMarkdown');
    const line = [...first.querySelectorAll('p')].find(p => p.textContent.includes(words));
    if (!line) return null;
    const box = line.getBoundingClientRect();
    return {text: line.textContent, seen: box.top >= 0 && box.bottom <= window.innerHeight,
            after: line.previousElementSibling ? line.previousElementSibling.tagName.toLowerCase() : null};
}"""
