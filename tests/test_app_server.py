"""The calculator app as a class server runs it (``make app``): Voila with ``llmest/surfaces/app/voila.json`` and
``voila.py``. Kernels are capped (a visitor past the cap gets a page saying the calculators are busy, and the server
holds no more kernels than the cap), and a malformed widget message sends no traceback with server paths to the
browser."""

import asyncio
import contextlib
import os
import re
import sys
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import IN_CI, require
from lab_pages import CHROMIUM, ROOT, _serve, chromium

voila_app = pytest.importorskip("voila.app")

APP = ROOT / "llmest" / "surfaces" / "app"
NOTEBOOK = APP / "llmest-calculators.ipynb"
# A static file: probing the server with it starts no kernel (the page itself would take a seat).
PROBE = "/voila/static/voila.js"
# What a traceback with server paths looks like, in a message or on the page.
LEAK = re.compile(r"Traceback|File \"|site-packages|\.py:\d+|" + re.escape(str(ROOT)) + "|" + re.escape(sys.prefix))


def _make_app_argv() -> list:
    """The arguments `make app` gives voila."""
    recipe = (ROOT / "Makefile").read_text(encoding="utf-8").split("\napp:", 1)[1].split("\n\n", 1)[0]
    command = next(line.strip() for line in recipe.splitlines()[1:] if "voila" in line)
    return command.split()[1:]


@contextlib.contextmanager
def app_server(tmp_path: Path, *options: str):
    """The app served as `make app` serves it (its config folder), on loopback; yields its URL and the folder that
    holds one connection file per running kernel."""
    kernels = tmp_path / "kernels"
    kernels.mkdir()
    args = ["-m", "voila", str(NOTEBOOK), "--no-browser", "--Voila.ip=127.0.0.1", f"--Voila.config_file_paths={APP}",
            f"--Voila.connection_dir_root={kernels}", *options]
    with _serve(args, PROBE, "Voila", dict(os.environ)) as url:
        yield url, kernels


def running_kernels(kernels: Path) -> int:
    return len(list(kernels.glob("*/kernel-*.json")))


def get(url: str):
    """(status, headers, body) of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode()


def test_make_app_caps_kernels_and_hides_tracebacks(tmp_path, monkeypatch):
    from llmest.surfaces.app.capacity import CappedKernelManager, busy_page

    monkeypatch.chdir(ROOT)  # where make runs
    app = voila_app.Voila()
    app.initialize(_make_app_argv())
    app.connection_dir = str(tmp_path)
    app.init_settings()  # makes the kernel manager, configured as the server will run it
    manager = app.kernel_manager
    assert isinstance(manager, CappedKernelManager) and 1 <= manager.max_kernels <= 200
    assert 0 < manager.cull_unconnected_timeout <= manager.cull_idle_timeout <= 3600
    assert "--InteractiveShell.xmode=Minimal" in manager.kernel_arguments
    assert app.voila_configuration.show_tracebacks is False
    assert app.voila_configuration.prelaunch_hook is busy_page


def test_the_kernel_manager_refuses_a_kernel_past_its_cap():
    """The cap holds even without the busy page's hook (pages loaded at the same moment pass the hook together)."""
    from tornado.web import HTTPError

    from llmest.surfaces.app.capacity import CappedKernelManager

    manager = CappedKernelManager(max_kernels=0)
    with pytest.raises(HTTPError) as refused:
        asyncio.run(manager.start_kernel(kernel_name="python3"))
    assert refused.value.status_code == 503 and "busy" in refused.value.reason
    assert manager.kernel_count() == 0


def test_a_visitor_past_the_cap_gets_the_busy_page_and_the_server_holds_the_cap(tmp_path):
    cap = 2
    with app_server(tmp_path, f"--CappedKernelManager.max_kernels={cap}") as (url, kernels):
        # Plain page loads start kernels as a browser's do: four at once, against a cap of two.
        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(get, [url] * 4))
        statuses = sorted(status for status, _, _ in answers)
        assert statuses == [200] * cap + [503] * (4 - cap), statuses
        assert running_kernels(kernels) == cap
        for status, _, body in answers:
            if status == 503:
                assert "calculators are busy" in body.lower(), body
                assert not LEAK.search(body), body
        # One more visitor, once the others are in: the busy page, in both languages, and still two kernels.
        status, headers, body = get(url)
        assert status == 503 and headers["Retry-After"]
        assert "The calculators are busy" in body and "计算器繁忙" in body and "try again" in body
        assert running_kernels(kernels) == cap



def test_a_kernel_no_page_connected_to_is_ended_sooner(tmp_path):
    """A page load that never opens its widgets (a script, say) holds its seat for cull_unconnected_timeout only."""
    import time

    with app_server(tmp_path, "--CappedKernelManager.cull_unconnected_timeout=2",
                    "--MappingKernelManager.cull_interval=1") as (url, kernels):
        assert get(url)[0] == 200 and running_kernels(kernels) == 1
        for _ in range(30):
            if not running_kernels(kernels):
                break
            time.sleep(0.5)
        assert running_kernels(kernels) == 0

# Run in the page: open a second socket to the page's own kernel, ask for its widgets, send each of them malformed
# messages, then frames that are not messages at all, and return every message the kernel sent back.
SEND_BAD_WIDGET_MESSAGES = """async (kernelId) => {
    const ws = new WebSocket(`ws://${location.host}/api/kernels/${kernelId}/channels?session_id=probe`);
    const received = [];
    const msg = (type, content) => JSON.stringify({header: {msg_id: crypto.randomUUID(), msg_type: type,
        username: '', session: 'probe', date: '', version: '5.3'}, parent_header: {}, metadata: {}, content,
        channel: 'shell', buffers: []});
    const sleep = (ms) => new Promise(r => setTimeout(r, ms));
    let comms = null;
    ws.onmessage = (event) => {
        received.push(event.data);
        const m = JSON.parse(event.data);
        if (m.msg_type === 'comm_info_reply') comms = Object.keys(m.content.comms);
    };
    await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
    ws.send(msg('comm_info_request', {target_name: 'jupyter.widget'}));
    for (let i = 0; i < 100 && comms === null; i++) await sleep(100);
    for (const id of (comms || []).slice(0, 30)) {
        ws.send(msg('comm_msg', {comm_id: id, data: {method: 'update', state: {value: {x: [1]}, description: 5,
                                                                               options: 7, children: ['bad']}}}));
        ws.send(msg('comm_msg', {comm_id: id, data: {method: 'update', state: 'not a state'}}));
        ws.send(msg('comm_msg', {comm_id: id, data: null}));
        ws.send(msg('comm_msg', {comm_id: id, data: {method: 'custom', content: {event: 'click'}}}));
    }
    ws.send(msg('comm_msg', {comm_id: 'no-such-comm', data: {method: 'update', state: {}}}));
    await sleep(5000);
    ws.send(JSON.stringify({channel: 'shell', header: {}}));
    ws.send('{not json');
    await sleep(2000);
    ws.close();
    return {comms: (comms || []).length, received};
}"""


def test_a_malformed_widget_message_sends_no_traceback_to_the_browser(tmp_path):
    if not Path(CHROMIUM).exists() and not IN_CI:
        pytest.skip("Chromium is not installed (apt-get install chromium); CI installs it")
    require("playwright.sync_api")
    with app_server(tmp_path) as (url, _), chromium() as browser:
        page = browser.new_page()
        page.set_default_timeout(120_000)
        page.goto(url)
        page.wait_for_selector(".llmest-param-calculator", state="attached")
        kernel_id = re.search(r'"kernelId":\s*"([\w-]+)"', page.content()).group(1)
        result = page.evaluate(SEND_BAD_WIDGET_MESSAGES, kernel_id)
        page.wait_for_timeout(1000)
        text = page.locator("body").inner_text()
        page.close()
    assert result["comms"] > 10, "the page's widgets were found"
    errors = [m for m in result["received"] if '"msg_type": "error"' in m or '"msg_type":"error"' in m]
    assert errors, "the malformed messages reached the widgets and failed there"
    leaks = [m[:500] for m in result["received"] if LEAK.search(m)]
    assert not leaks, leaks
    assert not LEAK.search(text), LEAK.search(text)
