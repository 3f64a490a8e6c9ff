"""The static pages (make html) in a real browser with the network cut: Chromium (Debian's package, driven by
Playwright) opens every page from the disk, every request that is not for a file is refused and recorded, and each
page must fetch nothing from another host, link to the previous, the next and every chapter, and show its formulas
as typeset math; so must every page of the Chinese edition, in zh/, which also says its language and reads in Chinese.

Locally the test skips when Chromium is missing; in CI (CI set) it must run."""

from pathlib import Path

import nbformat
import pytest

from conftest import IN_CI
from lab_pages import CHROMIUM, chromium
from llmest import export
from llmest.book.authoring import SOLUTIONS

CHAPTERS = sorted(path.stem for path in SOLUTIONS.glob("*.ipynb"))
PAGES = [export.INDEX, *(f"{stem}.html" for stem in CHAPTERS)]
EDITIONS = {"": "en", f"{export.CHINESE}/": "zh"}  # folder of the pages: their language

if not Path(CHROMIUM).exists() and not IN_CI:
    pytest.skip("Chromium is not installed (apt-get install chromium); CI installs it", allow_module_level=True)


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    """The whole solved workbook exported, both editions (about 40 s)."""
    out = tmp_path_factory.mktemp("html")
    export.export_book(out)
    return out


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


class Visit:
    """A page opened offline, its formulas typeset; ``outside`` lists what it asked of other hosts."""

    def __init__(self, browser, path: Path):
        self.outside: list[str] = []
        self.context = browser.new_context(viewport={"width": 1200, "height": 900})
        self.context.route("**/*", self._offline)
        self.page = self.context.new_page()
        self.page.set_default_timeout(30_000)
        self.page.goto(path.as_uri())
        if self.page.locator("script[src*='MathJax.js']").count():
            self.page.wait_for_function("() => window.MathJax && MathJax.isReady === true")
            self.page.evaluate("() => new Promise(done => MathJax.Hub.Queue(done))")  # after the first typesetting

    def _offline(self, route):
        url = route.request.url
        if url.startswith(("file:", "data:")):  # data: are the figures inside the page
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def hrefs(self, selector: str) -> list[str]:
        return self.page.eval_on_selector_all(selector, "links => links.map(a => a.getAttribute('href'))")

    def texts(self, selector: str) -> list[str]:
        return self.page.eval_on_selector_all(selector, "cells => cells.map(c => c.innerText)")

    def count(self, selector: str) -> int:
        return self.page.locator(selector).count()

    def close(self):
        self.context.close()


@pytest.fixture
def visit(browser):
    opened = []

    def open_page(path: Path) -> Visit:
        opened.append(Visit(browser, path))
        return opened[-1]

    yield open_page
    for page in opened:
        page.close()


@pytest.mark.parametrize("folder", EDITIONS)
@pytest.mark.parametrize("name", PAGES)
def test_page_loads_nothing_from_another_host_links_the_book_and_typesets_its_formulas(book, visit, folder, name):
    page = visit(book / folder / name)
    assert page.outside == [], f"{folder}{name} asked another host for {page.outside}"
    assert page.page.evaluate("document.documentElement.lang") == EDITIONS[folder]
    book = book / folder

    at = PAGES.index(name)
    assert page.hrefs("nav.llmest-nav a[rel=prev]") == ([PAGES[at - 1]] * 2 if at else [])
    assert page.hrefs("nav.llmest-nav a[rel=next]") == ([PAGES[at + 1]] * 2 if at + 1 < len(PAGES) else [])
    listed = page.hrefs(".llmest-toc a")
    assert set(PAGES[1:]) <= set(listed), f"{name} lists every chapter"
    assert all((book / href).is_file() for href in listed)

    if name == export.INDEX:
        other = {"": f"{export.CHINESE}/{export.INDEX}", f"{export.CHINESE}/": f"../{export.INDEX}"}[folder]
        assert page.hrefs(".llmest-edition a") == [other] and (book / other).is_file(), "each index links the other"
        return
    # SymPy's results (text/latex) are formulas: each is typeset and shows no TeX source.
    latex = page.count(".jp-RenderedLatex")
    assert page.count(".jp-RenderedLatex:has(.MathJax)") == latex
    assert page.page.evaluate("MathJax.Hub.getAllJax().length") >= latex
    assert not [text for text in page.texts(".jp-RenderedLatex") if "$" in text]
    assert not [text for text in page.texts(".jp-RenderedMarkdown") if "$$" in text or "\\(" in text]
    assert page.count(".MathJax_Error, merror") == 0
    # Math only where formulas are written: a '$' in an HTML output (a table, a widget) is money.
    astray = page.page.eval_on_selector_all(".MathJax", "found => found.filter(e => !e.closest("
                                            "'.jp-RenderedMarkdown, .jp-RenderedLatex, .tex2jax_process')).length")
    assert astray == 0, f"{name}: {astray} formulas typeset outside the prose and the LaTeX outputs"


def test_the_book_has_formulas_to_typeset():
    """So that the check above cannot pass on a book without any."""
    outputs = [out for stem in CHAPTERS for cell in nbformat.read(SOLUTIONS / f"{stem}.ipynb", as_version=4).cells
               for out in cell.get("outputs", []) if "text/latex" in out.get("data", {})]
    assert outputs


def test_money_reads_as_text_beside_typeset_formulas(tmp_path, visit):
    source = tmp_path / "solutions"
    source.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Chapter 9 · Money"),
                nbformat.v4.new_markdown_cell(r"An H100 at \$4 an hour, the middle of the material's \$3-5. "
                                              r"Training takes $C = 6ND$ FLOPs, and $$D = 20N$$"),
                nbformat.v4.new_code_cell("table", outputs=[nbformat.v4.new_output(
                    "display_data", {"text/html": "<p>$160,000 to $240,000 at $2-3 an hour</p>"})])]
    nbformat.write(nb, source / "09_money.ipynb")
    export.export(tmp_path / "html", source)
    page = visit(tmp_path / "html" / "09_money.html")
    assert page.outside == []
    prose = page.texts(".jp-RenderedMarkdown")[1]
    assert "at $4 an hour, the middle of the material's $3-5." in prose
    assert page.page.evaluate("MathJax.Hub.getAllJax().length") == 2
    assert page.count(".jp-RenderedMarkdown .MathJax_Display") == 1
    assert "$" not in prose.split("Training")[1], "the formulas are typeset, not left as TeX"
    assert page.texts(".jp-RenderedHTML p") == ["$160,000 to $240,000 at $2-3 an hour"], "an output's money is text"
