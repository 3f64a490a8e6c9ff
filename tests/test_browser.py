"""A real browser: JupyterLab headless on loopback, chapter 1 opened in Chromium (Debian's package, driven by
Playwright), every cell run, the calculator and an exercise used, and no widget errors on the page.

Locally the test skips when Chromium is missing; in CI (CI set) it must run."""

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import IN_CI, require

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic", "--disable-dev-shm-usage"]
# Turn off JupyterLab's news and update checks: this machine has no internet, and their toast covers the page.
QUIET_SETTINGS = {"@jupyterlab/apputils-extension/notification.jupyterlab-settings":
                  {"checkForUpdates": False, "fetchNews": "false"}}

if not Path(CHROMIUM).exists() and not IN_CI:
    pytest.skip("Chromium is not installed (apt-get install chromium); CI installs it", allow_module_level=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def lab_server(work_dir: Path):
    """A JupyterLab server on loopback over a copy of the student notebooks; yields its URL."""
    shutil.copytree(ROOT / "notebooks", work_dir / "notebooks")
    settings = work_dir / "settings"
    for name, values in QUIET_SETTINGS.items():
        (settings / name).parent.mkdir(parents=True, exist_ok=True)
        (settings / name).write_text(json.dumps(values))
    port = _free_port()
    env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(settings), JUPYTERLAB_WORKSPACES_DIR=str(work_dir / "ws"))
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip", "127.0.0.1", "--port", str(port),
         "--IdentityProvider.token=", "--ServerApp.password=", f"--ServerApp.root_dir={work_dir / 'notebooks'}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/api/status", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        else:
            raise RuntimeError("JupyterLab did not start within 60 s")
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


@contextlib.contextmanager
def chapter_1_page(url: str):
    """Chapter 1 open in Chromium with every cell run; yields the Playwright page."""
    playwright = require("playwright.sync_api")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(60_000)
        page.goto(f"{url}/lab/tree/01_parameters.ipynb?reset")
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        # The last cell prints the chapter's table of figures: when it is there, every cell has run.
        page.wait_for_selector("text=004-1.2-table-70b", timeout=180_000)
        page.wait_for_selector(".llmest-param-calculator .noUi-handle", state="attached")
        try:
            yield page
        finally:
            browser.close()


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    with lab_server(tmp_path_factory.mktemp("lab")) as url, chapter_1_page(url) as page:
        yield page


def _summary(page) -> str:
    # textContent, not innerText: JupyterLab skips rendering cells outside the viewport.
    return page.locator(".llmest-summary").text_content()


def test_calculator_follows_the_layers_slider(page):
    before = _summary(page)
    assert "6,738,415,616" in before  # Llama-2-7B, the calculator's starting model
    layers = page.locator(".llmest-num_layers .noUi-handle")
    layers.scroll_into_view_if_needed()
    layers.focus()
    layers.press("ArrowRight")
    page.wait_for_function("(old) => document.querySelector('.llmest-summary').textContent !== old", arg=before)
    after = _summary(page)
    assert after != before and "Total" in after


def test_calculator_shows_a_bad_value_beside_its_field(page):
    vocab = page.locator(".llmest-vocab_size input")
    vocab.scroll_into_view_if_needed()
    vocab.fill("0")
    vocab.press("Enter")
    page.locator(".llmest-error-vocab_size", has_text="vocab_size == 0, must be >= 1.").wait_for()
    assert "Fix the highlighted field" in _summary(page)
    vocab.fill("32000")
    vocab.press("Enter")
    page.wait_for_function("() => document.querySelector('.llmest-error-vocab_size').textContent === ''")
    assert _summary(page).startswith("Total")


def test_exercise_widget_checks_an_answer(page):
    box = page.locator(".llmest-exercise", has_text="Exercise 1.1.")
    box.scroll_into_view_if_needed()
    box.locator("input").fill("1.31 billion")
    box.locator("button", has_text="Check").click()
    box.locator("text=Correct").wait_for()
    box.locator("input").fill("abc")
    box.locator("button", has_text="Check").click()
    box.locator("text=Could not read that").wait_for()


def test_no_widget_errors_or_tracebacks(page):
    text = page.locator("body").text_content()
    assert "Error displaying widget" not in text
    assert "Traceback" not in text
