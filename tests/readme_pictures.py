"""The README's two pictures, remade with the browser test's machinery: python tests/readme_pictures.py

docs/images/chapter.png: chapter 1 in JupyterLab after Run All, at a section
that reads real config.json files; docs/images/calculator.png: the
parameter calculator in the calculator app (Voila). Saved as 256-colour PNGs to keep the repository small."""

import sys
import tempfile
from pathlib import Path

from PIL import Image

sys.path.insert(0, str(Path(__file__).parent))
from lab_pages import ROOT, chromium, lab_server, open_chapter, voila_server  # noqa: E402

IMAGES = ROOT / "docs" / "images"
WINDOW = {"width": 1200, "height": 760}


def save(page, name: str) -> None:
    path = IMAGES / f"{name}.png"
    page.screenshot(path=str(path))
    Image.open(path).convert("RGB").quantize(256).save(path, optimize=True)
    print(path, path.stat().st_size, "bytes")


def main() -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    with chromium() as browser, tempfile.TemporaryDirectory() as work:
        with lab_server(Path(work)) as url:
            page, _ = open_chapter(browser, url, "01_parameters.ipynb", ".llmest-param-calculator")
            page.set_viewport_size(WINDOW)
            page.keyboard.press("Control+b")  # close the file browser: the chapter takes the window
            section = page.locator(".jp-MarkdownCell", has_text="Real models: where the rule misses").first
            section.evaluate("cell => cell.scrollIntoView({block: 'start'})")
            page.wait_for_timeout(500)
            save(page, "chapter")
        with voila_server() as url:
            page = browser.new_page(viewport=WINDOW)
            page.set_default_timeout(120_000)
            page.goto(url)
            page.wait_for_selector(".llmest-param-calculator .llmest-summary")
            page.wait_for_timeout(1500)  # the chart and the sliders settle their sizes
            save(page, "calculator")


if __name__ == "__main__":
    main()
