"""Performance figures for the workbook (``make bench``). Prints medians and ratios measured in one run.

Each step takes its size as arguments (the defaults are the benchmark's); tests/test_benchmark.py calls every step
on a tiny input, so that a step cannot rot unnoticed.

Targets: ``import llmest`` <= 0.15 s; a calculator update <= 50 ms (median); counting a model from its
config.json at least 1000x faster than transformers building it on the meta device; the layout search over every
layout of 1,024 GPUs under 0.2 s in the kernel and under 1 s as a command; of 16,384 GPUs (the interleaved
schedule's model chunks searched too) under 1 s in the kernel.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "llmest" / "catalog" / "configs"  # the published config.json files
sys.path.insert(0, str(ROOT / "tests"))


def median_time(fn, repeat: int, inner: int = 1) -> float:
    """Median seconds per call over ``repeat`` samples of ``inner`` calls each."""
    fn()  # warm up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - start) / inner)
    return statistics.median(times)


def verdict(ok: bool) -> str:
    return "meets target" if ok else "MISSES target"


def bench_import(repeat: int = 15) -> None:
    code = "import time; t = time.perf_counter(); import llmest; print(time.perf_counter() - t)"
    times = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
             for _ in range(repeat)]
    median = statistics.median(times)
    print(f"import llmest: median {median * 1000:.1f} ms over {repeat} fresh interpreters "
          f"(target <= 150 ms: {verdict(median <= 0.15)})")


COUNTED = ("gpt2", "llama-2-7b", "mixtral-8x7b", "qwen1.5-moe-a2.7b", "llama-2-70b")


def bench_counting(names=COUNTED, rounds: int = 15, inner: int = 50) -> None:
    import torch
    import transformers

    import llmest as le

    transformers.logging.set_verbosity_error()
    print("count_params(from_hf_config(config)) against transformers' meta-device build of the same config:")
    ratios = []
    for name in names:
        config = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))

        def ours():
            return le.count_params(le.ModelConfig.from_hf_config(config)).total

        def theirs():
            with torch.device("meta"):
                model = transformers.AutoModelForCausalLM.from_config(transformers.AutoConfig.for_model(**config))
            return sum(p.numel() for p in model.parameters())

        assert ours() == theirs()
        # Interleaved, so that both see the same load on this noisy machine: each round times ``inner`` of ours and
        # one of theirs; the medians over the rounds are compared.
        rounds_ours, rounds_theirs = [], []
        for _ in range(rounds):
            rounds_ours.append(median_time(ours, 1, inner=inner))
            rounds_theirs.append(median_time(theirs, 1))
        t_ours, t_theirs = statistics.median(rounds_ours), statistics.median(rounds_theirs)
        ratios.append(t_theirs / t_ours)
        print(f"  {name:<20} llmest {t_ours * 1e6:8.1f} µs   transformers {t_theirs * 1e3:8.1f} ms   "
              f"{t_theirs / t_ours:>9,.0f}x")
    worst = min(ratios)
    print(f"  slowest ratio {worst:,.0f}x (target >= 1000x: {verdict(worst >= 1000)})")


def bench_calculator(repeat: int = 60) -> None:
    from llmest.surfaces.widgets import ParamCalculator

    calculator = ParamCalculator("llama-2-7b")
    layers = calculator.inputs["num_layers"]
    values = iter(range(10, 10 + 10 * repeat))

    def update():
        layers.value = next(values) % 150 + 1
        assert calculator.count.total > 0

    median = median_time(update, repeat)
    print(f"calculator update in the kernel (value change -> summary and chart recomputed): median "
          f"{median * 1000:.2f} ms over {repeat} (target <= 50 ms: {verdict(median <= 0.05)})")


def bench_calculator_in_browser(repeat: int = 20, page=None) -> None:
    """End to end: a key press on the layers slider in Chromium until the page shows the new count. ``page``: chapter
    1 already open and run in JupyterLab (the browser test passes its own); without it, a server and a browser are
    started for the measurement."""
    if page is not None:
        _time_calculator_in_browser(page, repeat)
        return
    import shutil

    if not shutil.which("chromium"):
        print("calculator update in the browser: skipped (Chromium not installed)")
        return
    import tempfile

    from lab_pages import chromium, lab_server, open_chapter

    with tempfile.TemporaryDirectory() as work, lab_server(Path(work)) as url, chromium() as browser:
        page, _ = open_chapter(browser, url, "01_parameters.ipynb", ".llmest-param-calculator .noUi-handle")
        _time_calculator_in_browser(page, repeat)


def _time_calculator_in_browser(page, repeat: int) -> None:
    page.locator(".llmest-num_layers .noUi-handle").scroll_into_view_if_needed()
    # Timed inside the page: key press on the layers slider -> the new count in the DOM (through the kernel).
    times = [page.evaluate(ROUND_TRIP_JS, "ArrowRight" if i % 2 == 0 else "ArrowLeft") / 1000 for i in range(repeat)]
    # For scale: the same round trip for a button whose handler does almost nothing (an exercise's Check).
    exercise = page.locator(".llmest-exercise").first
    exercise.scroll_into_view_if_needed()
    baseline = []
    for i in range(repeat):
        exercise.locator("input").fill(f"{i + 1} billion")
        try:
            baseline.append(page.evaluate(BUTTON_ROUND_TRIP_JS) / 1000)
        except Exception:  # a round trip that never came back: reported below, not fatal
            pass
    median = statistics.median(times)
    print(f"calculator update in Chromium (key press -> new count on the page): median {median * 1000:.1f} ms "
          f"over {repeat} (target <= 50 ms: {verdict(median <= 0.05)})")
    shown = f"median {statistics.median(baseline) * 1000:.1f} ms" if baseline else "no answer"
    missing = f" ({repeat - len(baseline)} of {repeat} timed out)" if len(baseline) < repeat else ""
    print(f"  for scale, an exercise's Check button round trip in the same page: {shown}{missing}")


ROUND_TRIP_JS = """async (key) => {
  const handle = document.querySelector('.llmest-num_layers .noUi-handle');
  const summary = document.querySelector('.llmest-summary');
  const old = summary.textContent;
  return await new Promise((resolve, reject) => {
    const start = performance.now();
    setTimeout(() => reject(new Error('no new count within 10 s')), 10000);
    const observer = new MutationObserver(() => {
      if (summary.textContent !== old) { observer.disconnect(); resolve(performance.now() - start); }
    });
    observer.observe(summary, {subtree: true, childList: true, characterData: true});
    handle.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true}));
  });
}"""


BUTTON_ROUND_TRIP_JS = """async () => {
  const box = document.querySelector('.llmest-exercise');
  const button = [...box.querySelectorAll('button')].find((b) => b.textContent.includes('Check'));
  return await new Promise((resolve, reject) => {
    const start = performance.now();
    setTimeout(() => reject(new Error('no verdict within 10 s')), 10000);
    const observer = new MutationObserver(() => { observer.disconnect(); resolve(performance.now() - start); });
    observer.observe(box, {subtree: true, childList: true, characterData: true});
    button.click();
  });
}"""


# (model, GPUs, GPU, sequence length, tokens a step, schedule, target in seconds)
SEARCHED = (("llama-2-7b", 1024, "H100 SXM", 4096, 4 * 2**20, "1f1b", 0.2),
            ("llama-2-70b", 1024, "H100 SXM", 4096, 4 * 2**20, "1f1b", 0.2),
            ("mixtral-8x7b", 1024, "A100 80GB", 4096, 4 * 2**20, "1f1b", 0.2),
            ("deepseek-v3", 1024, "H800", 4096, 4 * 2**20, "1f1b", 0.2),
            ("llama-3.1-405b", 16384, "H100 SXM", 8192, 16 * 2**20, "interleaved", 1.0),
            ("llama-3.1-70b", 16384, "H100 SXM", 8192, 16 * 2**20, "interleaved", 1.0))


def bench_layout_search(cases=SEARCHED, repeat: int = 9, command_repeat: int = 5) -> None:
    from llmest import plans

    print("layout search, every TP × CP × PP × DP (× EP for experts, × VP interleaved) layout with ZeRO 0-3, 5 "
          "micro-batch sizes, 3 recomputations:")
    for name, gpus, gpu, seq, tokens, schedule, target in cases:
        found = plans.search_layouts(name, gpus, gpu, seq, tokens, schedule=schedule)
        median = median_time(lambda: plans.search_layouts(name, gpus, gpu, seq, tokens, schedule=schedule), repeat)
        print(f"  {name:<14} {gpus:>6,} × {gpu:<10} {schedule:<11} {len(found):>7,} layouts ({found.fitting:,} fit): "
              f"median {median * 1000:6.1f} ms (target < {target * 1000:,.0f} ms in the kernel: "
              f"{verdict(median < target)})")
    command = [sys.executable, "-m", "llmest", "layout", "llama-2-70b", "--gpus", "1024", "--gpu", "H100 SXM",
               "--seq-len", "4096", "--global-batch-tokens", "4194304", "--json"]
    median = median_time(lambda: subprocess.run(command, capture_output=True, check=True), command_repeat)
    print(f"  llmest layout llama-2-70b --gpus 1024 ... --json: median {median:.2f} s over {command_repeat} runs, "
          f"a fresh interpreter each (target < 1 s: {verdict(median < 1)})")


def bench_chapters(paths=None) -> None:
    import nbformat

    from llmest.book.authoring import SOLUTIONS, execute

    print("wall time to execute each chapter (solutions copy, fresh kernel):")
    for path in paths or sorted(SOLUTIONS.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        start = time.perf_counter()
        execute(nb, path.parent)
        print(f"  {path.name:<32} {time.perf_counter() - start:6.1f} s")


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)
    bench_import()
    bench_counting()
    bench_calculator()
    bench_layout_search()
    bench_calculator_in_browser()
    bench_chapters()
