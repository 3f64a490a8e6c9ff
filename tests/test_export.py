"""The static HTML export of the solved workbook."""

import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from llmest.book import export, export_page, export_widgets

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = ("01_parameters.ipynb", "05_interview_drills.ipynb")


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Chapters 1 and 5 exported (a few seconds a chapter)."""
    source = tmp_path_factory.mktemp("solutions")
    for name in CHAPTERS:
        shutil.copy(ROOT / "solutions" / name, source / name)
    return export.export(tmp_path_factory.mktemp("html"), source)


def test_export_writes_a_readable_page_per_chapter_and_an_index(pages):
    assert [p.name for p in pages] == ["index.html", "01_parameters.html", "05_interview_drills.html"]
    index = pages[0].read_text(encoding="utf-8")
    assert 'href="01_parameters.html"' in index and "Chapter 5 · Interview drills" in index
    chapter_1 = pages[1].read_text(encoding="utf-8")
    assert "6,738,415,616" in chapter_1, "the stored worked answers are in the page"
    assert "data:image/png;base64," in chapter_1, "figures are embedded"
    assert "Correct:" in chapter_1, "the solved exercises and their checks are shown"
    # Chapter 1's key once answered old questions and the export published "Not yet" as the solved workbook.
    assert chapter_1.count("Correct:") >= 6 and "Not yet:" not in chapter_1
    for page in pages[1:]:
        text = page.read_text(encoding="utf-8")
        assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text
        assert "application/vnd.jupyter.widget-view+json" not in text and export.widget_note() in text
        assert '<span class="c1"># NBVAL' not in text, "the test markers are not shown in code"
    # An exercise's question stands where its widget was.
    assert "<b>Exercise 5.1.</b> The material" in pages[2].read_text(encoding="utf-8")


def test_the_export_command_reports_a_missing_source(tmp_path):
    result = subprocess.run([sys.executable, "-c", "from llmest import export; export.export('out', 'nowhere')"],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 1 and "no notebooks in nowhere" in result.stderr


class _Tags(HTMLParser):
    """The start tags of a page, with their attributes."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def _loads(text: str) -> list[str]:
    """What a page asks the browser to fetch: scripts, style sheets, images, frames, and modules it imports."""
    tags = _Tags(text).tags
    urls = [a["src"] for t, a in tags if t in ("script", "img", "iframe", "source") and a.get("src")]
    urls += [a["href"] for t, a in tags if t == "link" and a.get("href")]
    return urls + re.findall(r"""import\(\s*["']([^"']+)""", text) + re.findall(r"""@import\s+url\(["']?([^"')]+)""",
                                                                                   text)


def test_pages_load_every_script_from_beside_them(pages):
    for page in pages:
        text = page.read_text(encoding="utf-8")
        loads = [url for url in _loads(text) if not url.startswith("data:")]
        assert not [url for url in loads if re.match(r"[a-z]+:|//", url)], f"{page.name} loads from another host"
        for url in loads:
            assert (page.parent / url.split("?")[0]).is_file(), f"{page.name}: {url} is not in the build"
    chapter_loads = _loads(pages[1].read_text(encoding="utf-8"))
    assert any(url.startswith(f"{export_page.MATHJAX_DIR}/MathJax.js") for url in chapter_loads), \
        "the chapters load MathJax from the copy beside them"


def _links(text: str) -> tuple[list[str], list[str], list[str]]:
    """The page's previous, next and contents links (each bar, top and bottom, counts)."""
    tags = _Tags(text).tags
    rel = [(a.get("rel"), a.get("href")) for t, a in tags if t == "a"]
    return ([h for r, h in rel if r == "prev"], [h for r, h in rel if r == "next"],
            [h for r, h in rel if r is None and h and h.endswith(".html")])


def test_every_page_links_to_the_previous_the_next_and_every_chapter(pages):
    names = [p.name for p in pages]
    for i, page in enumerate(pages):
        previous, following, listed = _links(page.read_text(encoding="utf-8"))
        assert previous == ([names[i - 1]] * 2 if i else []), page.name
        assert following == ([names[i + 1]] * 2 if i + 1 < len(names) else []), page.name
        assert set(names[1:]) <= set(listed), f"{page.name} lists every chapter"


def _text(markup: str) -> str:
    """The words of some HTML, as a reader sees them."""
    parser = HTMLParser()
    words: list[str] = []
    parser.handle_data = words.append
    parser.feed(markup)
    return " ".join(" ".join(words).split())


def _widget_trees(nb):
    """(the models saved, the model ids of each widget output) of a notebook."""
    models = export_widgets.saved_models(nb)
    views = [out.data[export_widgets.VIEW]["model_id"] for cell in nb.cells for out in cell.get("outputs", [])
             if export_widgets.VIEW in out.get("data", {})]
    return models, views


def _shown_html(model_id, models):
    """The HTML widgets' values that the reader saw in a widget tree (hidden parts left out)."""
    state = models[model_id]["state"]
    layout = models.get(state.get("layout", "").removeprefix("IPY_MODEL_"), {}).get("state", {})
    if layout.get("display") == "none":
        return []
    values = [state["value"]] if models[model_id]["model_name"] == "HTMLModel" and state.get("value") else []
    for child in state.get("children", []):
        values += _shown_html(child.removeprefix("IPY_MODEL_"), models)
    return values


def test_each_widget_stands_as_its_saved_output(pages):
    for name, page in zip(CHAPTERS, pages[1:]):
        models, views = _widget_trees(nbformat.read(ROOT / "solutions" / name, as_version=4))
        text = page.read_text(encoding="utf-8")
        assert views and text.count(export.widget_note()) == len(views)
        shown = [value for view in views for value in _shown_html(view, models)]
        assert len(shown) >= len(views), "every widget printed something when the chapter ran"
        # nbconvert rewrites an output's HTML (<br> as <br/>, entities as characters): compare what is read.
        page_text = _text(text)
        missing = [value[:80] for value in shown if _text(value) not in page_text]
        assert not missing, f"{name}: saved widget output missing from the page"


def test_a_static_copy_keeps_values_and_hides_what_was_hidden():
    widgets = pytest.importorskip("ipywidgets")
    from ipywidgets.embed import embed_data

    slider = widgets.IntSlider(description="layers L", value=37, min=1, max=80)
    slider.add_class("llmest-num_layers")
    box = widgets.VBox([slider, widgets.HTML("Total <b>7,000</b>"),
                        widgets.HTML("the hint", layout=widgets.Layout(display="none")),
                        widgets.HBox([widgets.Dropdown(description="model", options=["gpt2", "llama-2-7b"],
                                                       value="llama-2-7b"),
                                      widgets.Text(placeholder="e.g. 41.5 days"), widgets.Button(description="Check"),
                                      widgets.Checkbox(description="tied", value=True)])])
    data = embed_data(views=[box])
    drawn = export_widgets.static_copy(data["view_specs"][0], data["manager_state"]["state"])
    assert 'class="llmest-w llmest-w-intslider llmest-num_layers"' in drawn
    assert 'value="37"' in drawn and "<output>37</output>" in drawn and "layers L" in drawn
    assert "Total <b>7,000</b>" in drawn and "the hint" not in drawn
    assert "<option selected>llama-2-7b</option>" in drawn and "gpt2" not in drawn
    assert 'placeholder="e.g. 41.5 days"' in drawn and "<button disabled" in drawn and "checked" in drawn
    assert export_widgets.static_copy({"model_id": "not saved"}, data["manager_state"]["state"]) is None


def _markdown_chapter(path: Path, prose: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Chapter 9 · Money"), nbformat.v4.new_markdown_cell(prose)]
    nbformat.write(nb, path)
    return path


MONEY = r"An H100 at \$4 an hour, the material's \$3-5, and `\$` in code; the rule $C = 6ND$ and $$D = 20N$$."


def test_money_in_prose_stays_text_and_formulas_stay_formulas(tmp_path):
    source = tmp_path / "solutions"
    source.mkdir()
    _markdown_chapter(source / "09_money.ipynb", MONEY)
    text = export.export(tmp_path / "html", source)[1].read_text(encoding="utf-8")
    literal = export_page.LITERAL_DOLLAR
    assert f"at {literal}4 an hour, the material's {literal}3-5" in text, "each money sign kept from MathJax"
    assert "<code>\\$</code>" in text, "code is shown as written"
    assert "$C = 6ND$" in text and "$$D = 20N$$" in text, "formulas are left for MathJax"


def test_money_written_for_jupyterlab_loses_its_escape_on_the_page(tmp_path):
    """The chapters write money \\\\$4 (JupyterLab would pair \\$4 with the next sign): the page shows $4, with no
    backslash."""
    source = tmp_path / "solutions"
    source.mkdir()
    _markdown_chapter(source / "09_money.ipynb", MONEY.replace(r"\$", r"\\$").replace(r"`\\$`", r"`\$`"))
    text = export.export(tmp_path / "html", source)[1].read_text(encoding="utf-8")
    literal = export_page.LITERAL_DOLLAR
    assert f"at {literal}4 an hour, the material's {literal}3-5" in text and "\\<span" not in text
    assert "<code>\\$</code>" in text and "$C = 6ND$" in text and "$$D = 20N$$" in text


def test_a_missing_mathjax_package_is_named(monkeypatch):
    monkeypatch.setattr(export_page.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModuleNotFoundError, match="jupyter-server-mathjax"):
        export_page.mathjax_source()


def test_the_chinese_edition_is_written_below_the_english_one_and_reads_in_chinese(tmp_path):
    from llmest.book.edition import english_prose
    from llmest.core.i18n import speaking

    english, chinese = tmp_path / "solutions", tmp_path / "solutions" / "zh"
    chinese.mkdir(parents=True)
    for name in CHAPTERS:
        shutil.copy(ROOT / "solutions" / name, english / name)
        shutil.copy(ROOT / "solutions" / "zh" / name, chinese / name)
    pages = export.export_book(tmp_path / "html", english)
    assert [p.relative_to(tmp_path / "html").as_posix() for p in pages] == [
        "index.html", "01_parameters.html", "05_interview_drills.html",
        "zh/index.html", "zh/01_parameters.html", "zh/05_interview_drills.html"]
    assert not (tmp_path / "html" / "zh" / "mathjax").exists(), "one copy of MathJax serves both editions"
    assert 'href="zh/index.html"' in pages[0].read_text(encoding="utf-8") and 'href="../index.html"' in pages[3].read_text(encoding="utf-8")
    with speaking("zh"):
        note = export.widget_note()
    assert not english_prose(re.sub(r"<[^>]+>", " ", note))
    for page in pages[3:]:
        text = page.read_text(encoding="utf-8")
        assert '<html lang="zh">' in text and (page.name == "index.html" or '"../mathjax/MathJax.js' in text)
        bars = re.findall(r'<nav [^>]*llmest-nav[^>]*>.*?</nav>', text, re.S)
        assert bars and not [bar for bar in bars if english_prose(re.sub(r"<[^>]+>", " ", bar))]
    chapter = pages[4].read_text(encoding="utf-8")
    assert "正确" in chapter and "Correct:" not in chapter, "the solved exercises grade in Chinese"
    assert chapter.count(note) >= 1 and export.widget_note() not in chapter
    assert "练习册" in pages[3].read_text(encoding="utf-8") and "第1章" in pages[3].read_text(encoding="utf-8")


def test_each_worked_answer_is_folded_below_its_question(pages):
    """A reader tries the question first: the cell that held the solution opens on a click (as scaling-book does)."""
    chapter_1 = pages[1].read_text(encoding="utf-8")
    solved = [cell for cell in nbformat.read(ROOT / "solutions" / CHAPTERS[0], as_version=4).cells
              if export.BEGIN in cell.source]
    folds = re.findall(r'<details class="llmest-worked"><summary>Worked answer</summary>(.*?)</details>', chapter_1,
                       re.DOTALL)
    assert len(folds) == len(solved) >= 6
    assert "rule_params(2048, 24, 50000)" in re.sub(r"<[^>]+>", "", folds[0])  # exercise 1.1's working
    assert all("Correct:" in fold for fold in folds if "exercise(" in re.sub(r"<[^>]+>", "", fold))
    question = chapter_1.index("<b>Exercise 1.1.</b>")
    assert question < chapter_1.index('<details class="llmest-worked">'), "the question stays open above its fold"
