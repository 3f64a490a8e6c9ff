"""A real browser: JupyterLab headless on loopback with the student chapters as ``make lab`` leaves them (trusted),
opened in Chromium (Debian's package, driven by Playwright). Each chapter opens without raw widget text, its Chinese
headings render as glyphs, every cell runs, one exercise takes a wrong then a right answer, one calculator moves,
and a full-page screenshot is saved; the calculator app is checked on a phone and a projector.

Screenshots go to $LLMEST_SCREENSHOTS, or build/screenshots/ (printed at the start).
Locally the test skips when Chromium is missing; in CI (CI set) it must run."""

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from conftest import IN_CI
from lab_pages import (BOXED_CHARACTERS, CHINESE_TEXT, CHROMIUM, HEADINGS, MARKDOWN_MATH, NOTEBOOKS,
                       ON_THE_FIRST_SCREEN, RAW_WIDGET, READING, SCREENSHOTS, TYPESET, WIDER_THAN_THE_WINDOW, chromium,
                       lab_server, open_chapter, open_unrun, screenshot, voila_server)
from test_notebooks import CODE as MARKDOWN_CODE, FORMULA
from llmest.learn.exercises import get as exercise
from llmest.core.i18n import _, speaking
from llmest.core.units import show

if not Path(CHROMIUM).exists() and not IN_CI:
    pytest.skip("Chromium is not installed (apt-get install chromium); CI installs it", allow_module_level=True)



@dataclass(frozen=True)
class Chapter:
    widget: str | None = None     # a selector inside the chapter's main widget, there once every cell has run
    exercise: str | None = None   # the exercise a reader answers
    field: str | None = None      # a calculator's field the reader moves: a slider, a text box or a menu
    summary: str | None = None    # what changes when it moves
    moved_to: str | None = None   # the text or option it is moved to (a slider moves one step)


CHAPTERS = {
    "01_parameters": Chapter(".llmest-param-calculator .noUi-handle", "1.3", ".llmest-param-calculator "
                             ".llmest-num_layers", ".llmest-param-calculator .llmest-summary"),
    "02_memory": Chapter(".llmest-memory-planner", "2.2", ".llmest-memory-planner .llmest-model",
                         ".llmest-memory-planner", "llama-2-13b"),
    "03_flops_and_time": Chapter(".llmest-training-planner", "3.2", ".llmest-roofline .llmest-batch",
                                 ".llmest-roofline-summary"),
    "04_data_and_tokens": Chapter(".llmest-data-planner", "4.2", ".llmest-data-planner .llmest-params",
                                  ".llmest-data-summary", "13B"),
    "05_interview_drills": Chapter(".llmest-timed-session", "5.2"),
    "06_measure_it_yourself": Chapter(".llmest-exercise", "6.2"),
    "90_appendix_material": Chapter(),
}

@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    with lab_server(tmp_path_factory.mktemp("lab")) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


@pytest.fixture(scope="module")
def chapters(lab, browser, request):
    """Each chapter opened and run once, on first use: ``chapters("01_parameters")`` is (its page, the text it
    showed on opening)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with request.config.pluginmanager.get_plugin("capturemanager").global_and_fixture_disabled():
        print(f"\nscreenshots: {SCREENSHOTS}")
    opened = {}

    def chapter(name):
        if name not in opened:
            opened[name] = open_chapter(browser, lab, f"{name}.ipynb", CHAPTERS[name].widget)
        return opened[name]
    return chapter


@pytest.fixture(scope="module")
def page(chapters):
    return chapters("01_parameters")[0]


@pytest.fixture(scope="module")
def compute_page(chapters):
    return chapters("03_flops_and_time")[0]


@pytest.fixture(scope="module")
def memory_page(chapters):
    return chapters("02_memory")[0]


@pytest.fixture(scope="module")
def drills_page(chapters):
    return chapters("05_interview_drills")[0]


@pytest.mark.parametrize("name", CHAPTERS)
def test_the_chapter_opens_without_raw_widget_text(chapters, name):
    """As make lab leaves it, before anything runs: no widget's plain-text form, no widget error."""
    on_open = chapters(name)[1]
    assert "Chapter" in on_open or "Appendix" in on_open, "the chapter's text is on the page"
    raw = RAW_WIDGET.search(on_open)
    assert not raw, f"{name} opens with a widget's plain text: {on_open[raw.start():raw.start() + 120]!r}"
    assert "Error displaying widget" not in on_open


@pytest.mark.parametrize("name", CHAPTERS)
def test_the_chinese_headings_render_as_glyphs(chapters, name):
    page = chapters(name)[0]
    page.evaluate("() => document.fonts.ready")
    found = page.evaluate(BOXED_CHARACTERS, HEADINGS)
    assert found["headings"] and found["drawn"] > 5, found
    assert not found["boxed"], (f"{name}: {found['boxed']!r} render as boxes: no font with Chinese glyphs "
                                "(apt-get install fonts-noto-cjk)")


def test_a_chinese_chapter_renders_its_glyphs_and_grades_in_chinese(lab, browser):
    """The Chinese edition's first chapter, run in full: no character on the page drawn as a box, and a Chinese
    answer ("约 ...") in the exercise box graded in Chinese."""
    page, on_open = open_chapter(browser, lab, "zh/01_parameters.ipynb", CHAPTERS["01_parameters"].widget)
    assert "第1章" in on_open and "Error displaying widget" not in on_open
    page.evaluate("() => document.fonts.ready")
    found = page.evaluate(BOXED_CHARACTERS, CHINESE_TEXT)
    assert found["headings"] > 20 and found["drawn"] > 300, found
    assert not found["boxed"], f"{found['boxed']!r} render as boxes (apt-get install fonts-noto-cjk)"
    ex = exercise("1.3")
    with speaking("zh"):
        entry = "约 " + show(ex.expected(), ex.unit)
        check, question, verdict = _("Check"), ex.shown_question, ex.check(entry)
    assert verdict.grade == "correct" and re.search("[\u4e00-\u9fff]", verdict.message + check)
    box = page.locator(".llmest-exercise", has_text=question[:24])
    box.scroll_into_view_if_needed()
    box.locator("input").fill(entry)
    box.locator("button", has_text=check).click()
    box.locator("span", has_text=re.split("[:：]", verdict.message)[0]).wait_for()
    assert screenshot(page, "zh-01_parameters").stat().st_size > 10_000


EDITIONS = {"en": ("", "Run all cells first", "run the exercise cell above"),
            "zh": ("zh/", "先运行全部单元格", "运行上面的练习单元格")}
UNRUN = [(name, language) for name in CHAPTERS for language in EDITIONS]


@pytest.fixture(scope="module")
def unrun(lab, browser):
    """Each chapter as a reader first opens it, nothing run, on first use: ``unrun("01_parameters", "zh")``."""
    opened = {}

    def chapter(name, language):
        if (name, language) not in opened:
            opened[name, language] = open_unrun(browser, lab, f"{EDITIONS[language][0]}{name}.ipynb")
        return opened[name, language]
    yield chapter
    for page in opened.values():
        page.close()


@pytest.mark.parametrize("name, language", UNRUN)
def test_money_in_prose_is_text_and_formulas_are_typeset(unrun, name, language):
    """JupyterLab's Markdown renderer turns \\$ into $ before MathJax reads a cell (jupyterlab#8645), so two amounts
    would become one formula: no markdown cell holding money shows a formula it does not hold, and each of its dollar
    signs is text. The chapter's formulas (its stored LaTeX outputs) are still typeset."""
    cells = nbformat.read(NOTEBOOKS / f"{EDITIONS[language][0]}{name}.ipynb", as_version=4).cells
    prose = {i: MARKDOWN_CODE.sub("", cell.source) for i, cell in enumerate(cells) if cell.cell_type == "markdown"}
    money = [i for i, text in prose.items() if "$" in FORMULA.sub("", text)]
    latex = sum("text/latex" in out.get("data", {}) for cell in cells for out in cell.get("outputs", []))
    assert money or name not in ("03_flops_and_time", "05_interview_drills"), "the chapters known to hold money"
    page = unrun(name, language)
    page.wait_for_function(TYPESET, arg=[money, latex])
    page.wait_for_timeout(1000)  # MathJax typesets the cells one by one: let it finish with the last
    for i, shown in zip(money, page.evaluate(MARKDOWN_MATH, money)):
        formulas = FORMULA.findall(prose[i])
        assert shown["formulas"] == len(formulas), f"{language}/{name} cell {i} read as a formula: {shown['text']!r}"
        assert shown["dollars"] == cells[i].source.count("$") - sum(f.count("$") for f in formulas), shown["text"]
    assert page.locator(".jp-RenderedLatex mjx-container").count() >= latex


@pytest.mark.parametrize("name, language", UNRUN)
def test_an_unrun_chapter_says_to_run_all_cells_first(unrun, name, language):
    """Opened fresh, a chapter's calculators and exercise boxes are not there yet: the line under its title and
    goals, seen without scrolling, says to run every cell first, and an answer cell's stored "No answer yet" says
    what to do."""
    page = unrun(name, language)
    _, words, what_to_do = EDITIONS[language]
    line = page.evaluate(ON_THE_FIRST_SCREEN, words)
    assert line and "Run → Run All Cells" in line["text"], f"{language}/{name}: no run-all line in the first cell"
    assert line["seen"], f"{language}/{name}: the run-all line is below the first screen"
    assert line["after"] == ("p" if name.startswith("90") else "ul"), "it comes right after the goals"
    if CHAPTERS[name].exercise:
        no_answer = page.locator(".jp-OutputArea-output", has_text=what_to_do)
        assert no_answer.count() >= 1, f"{language}/{name}: no answer cell says what to do"


def _changed(page, css: str, old: str):
    page.wait_for_function("([css, old]) => document.querySelector(css).textContent !== old", arg=[css, old])


def _move(page, chapter: Chapter):
    """Move the chapter's calculator, see its result change, and move it back to where it was."""
    field = page.locator(chapter.field)
    field.scroll_into_view_if_needed()
    before = page.locator(chapter.summary).text_content()
    if field.locator(".noUi-handle").count():
        handle = field.locator(".noUi-handle")
        handle.focus()
        handle.press("ArrowRight")
        _changed(page, chapter.summary, before)
        handle.press("ArrowLeft")
    elif field.locator("select").count():
        menu = field.locator("select")
        was = menu.input_value()
        menu.select_option(label=chapter.moved_to)
        _changed(page, chapter.summary, before)
        menu.select_option(value=was)
    else:
        entry = field.locator("input")
        was = entry.input_value()
        entry.fill(chapter.moved_to)
        entry.press("Enter")
        _changed(page, chapter.summary, before)
        entry.fill(was)
        entry.press("Enter")
    page.wait_for_function("([css, old]) => document.querySelector(css).textContent === old",
                           arg=[chapter.summary, before])


def _answer(page, key: str):
    """A wrong answer (ten times the library's), then the library's own answer, each graded on the page as the
    library grades it."""
    ex = exercise(key)
    box = page.locator(".llmest-exercise", has_text=f"Exercise {key}.")
    box.scroll_into_view_if_needed()
    for value, grade in ((ex.expected() * 10, "wrong"), (ex.expected(), "correct")):
        entry = show(value, ex.unit)
        verdict = ex.check(entry)
        assert verdict.grade == grade, verdict
        box.locator("input").fill(entry)
        box.locator("button", has_text="Check").click()
        # The kernel answers after whatever else the machine runs: a busy CI machine has taken over a minute.
        box.locator("span", has_text=verdict.message.split(":")[0]).wait_for(timeout=180_000)


@pytest.mark.parametrize("name", CHAPTERS)
def test_a_reader_walks_the_chapter(chapters, name):
    """Open, run all (done by ``chapters``), answer an exercise, move a calculator, and save a screenshot."""
    page, chapter = chapters(name)[0], CHAPTERS[name]
    if chapter.exercise:
        _answer(page, chapter.exercise)
    if chapter.field:
        _move(page, chapter)
    text = page.locator(".jp-Notebook").text_content()
    assert "Error displaying widget" not in text and "Traceback" not in text
    assert screenshot(page, name).stat().st_size > 10_000


def _first_link_target(name: str) -> str:
    """The heading of the cell that the first link of the chapter's check-yourself list leads to, as JupyterLab
    names it (data-jupyter-id: the heading's text with spaces as hyphens)."""
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    listing = next(cell for cell in nb.cells if cell.source.startswith("## Check yourself"))
    cell_id = re.search(r"\(#cell-id=([\w-]+)\)", listing.source)[1]
    heading = next(line for cell in nb.cells if cell.id == cell_id for line in cell.source.splitlines()
                   if line.startswith("#"))
    return heading.lstrip("#").strip().replace(" ", "-")


@pytest.mark.parametrize("name", [name for name in CHAPTERS if not name.startswith("90")])
def test_the_check_yourself_links_lead_to_their_sections(chapters, name):
    page = chapters(name)[0]
    heading = _first_link_target(name)
    in_view = ("(id) => { const h = document.querySelector(`[data-jupyter-id=\"${CSS.escape(id)}\"]`);"
               " const r = h.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; }")
    cell = page.locator(".jp-MarkdownCell", has=page.locator("h2", has_text="Check yourself"))
    link = cell.locator("a[href^='#cell-id=']").first
    link.scroll_into_view_if_needed()
    assert not page.evaluate(in_view, heading)
    link.click()  # JupyterLab scrolls the notebook to the cell
    page.wait_for_function(in_view, arg=heading)


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
    page.locator(".llmest-error-vocab_size", has_text="vocabulary V = 0, must be >= 1.").wait_for()
    assert "Fix the highlighted field" in _summary(page)
    vocab.fill("32000")
    vocab.press("Enter")
    page.wait_for_function("() => document.querySelector('.llmest-error-vocab_size').textContent === ''")
    # the summary is a widget of its own: its new text may reach the page after the cleared message
    page.wait_for_function("() => document.querySelector('.llmest-summary').textContent.startsWith('Total')")
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


def _verdict(page) -> str:
    return page.locator(".llmest-verdict").text_content()


def test_memory_planner_follows_the_zero_stage_and_the_task(memory_page):
    page = memory_page
    planner = page.locator(".llmest-memory-planner")
    planner.scroll_into_view_if_needed()
    assert "Fits" in _verdict(page)
    page.locator(".llmest-zero select").select_option(label="0")
    page.wait_for_function("() => document.querySelector('.llmest-verdict').textContent.includes('Does not fit')")
    planner.locator("button", has_text="inference").click()
    page.wait_for_function("() => document.querySelector('.llmest-memory-planner').textContent.includes('KV cache')")
    assert "tensor parallel over" in _verdict(page)


def test_no_widget_errors_in_chapter_2(memory_page):
    text = memory_page.locator("body").text_content()
    assert "Error displaying widget" not in text and "Traceback" not in text


def test_training_planner_follows_the_gpu_count(compute_page):
    page = compute_page
    summary = page.locator(".llmest-training-summary")
    summary.scroll_into_view_if_needed()
    before = summary.text_content()
    gpus = page.locator(".llmest-training-planner .llmest-gpus input")
    gpus.fill("1024")
    gpus.press("Enter")
    page.wait_for_function("(old) => document.querySelector('.llmest-training-summary').textContent !== old",
                           arg=before)
    assert "1,024 ×" in summary.text_content()
    assert "Error displaying widget" not in page.locator("body").text_content()


def test_the_timed_session_ticks_grades_and_moves_on(drills_page):
    page = drills_page
    session = page.locator(".llmest-timed-session")
    session.scroll_into_view_if_needed()
    timer = session.locator(".llmest-timer")
    # Nothing is timed while the reader is elsewhere: question 1 and its clock wait for Start.
    start = session.locator("button.llmest-start", has_text="Start")
    start.wait_for()
    assert not timer.is_visible() and "Question 1 of" not in session.text_content()
    start.click()
    session.locator("text=Question 1 of 5").wait_for()
    timer.locator("text=left").wait_for()
    first = timer.text_content()
    assert re.fullmatch(r"\d+:\d\d left", first.strip()), first
    # The clock is driven by the page (a Play widget ticking each second), so it must move on its own.
    page.wait_for_function("(old) => document.querySelector('.llmest-timer').textContent !== old", arg=first,
                           timeout=10_000)
    entry = session.locator("input")
    entry.fill("abc")
    session.locator("button", has_text="Submit").click()
    session.locator("text=Could not read that").wait_for()
    entry.fill("1")
    session.locator("button", has_text="Submit").click()
    session.locator("text=Answer:").wait_for()
    session.locator("button", has_text="Next question").click()
    session.locator("text=Question 2 of 5").wait_for()


def test_the_flashcards_reveal_and_count(drills_page):
    deck = drills_page.locator(".llmest-flashcards")
    deck.scroll_into_view_if_needed()
    deck.locator("text=card 1 of").wait_for()
    deck.locator("button", has_text="Show answer").click()
    deck.locator("button", has_text="I knew it").click()
    deck.locator("text=card 2 of").wait_for()


def test_no_widget_errors_in_chapter_5(drills_page):
    text = drills_page.locator("body").text_content()
    assert "Error displaying widget" not in text and "Traceback" not in text


APP_PARTS = (".llmest-param-calculator", ".llmest-memory-planner", ".llmest-training-planner", ".llmest-data-planner")


@pytest.fixture(scope="module")
def app():
    with voila_server() as url:
        yield url


def open_app(browser, url: str, viewport: dict):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport=viewport)
    page.set_default_timeout(120_000)
    page.goto(url)
    for css in APP_PARTS:
        page.wait_for_selector(css, state="attached")
    return page


def test_the_calculator_app_runs_without_code_and_follows_its_inputs(browser, app):
    page = open_app(browser, app, READING)
    summary = page.locator(".llmest-param-calculator .llmest-summary")
    before = summary.text_content()
    assert "6,738,415,616" in before
    handle = page.locator(".llmest-num_layers .noUi-handle")
    handle.scroll_into_view_if_needed()
    handle.focus()
    handle.press("ArrowRight")
    page.wait_for_function("(old) => document.querySelector('.llmest-param-calculator .llmest-summary')"
                           ".textContent !== old", arg=before)
    text = page.locator("body").text_content()
    assert "le.widgets" not in text, "no code is shown"
    assert "Error displaying widget" not in text and "Traceback" not in text
    page.close()


@pytest.mark.parametrize("width, height", [(390, 844), (1920, 1080)], ids=["phone", "projector"])
def test_the_calculator_app_fits_the_window(browser, app, width, height):
    """No sideways scrolling on a phone or a projector."""
    page = open_app(browser, app, {"width": width, "height": height})
    page.wait_for_timeout(1000)  # the charts and sliders settle their sizes
    scroll_width, inner_width = page.evaluate(
        "() => [document.documentElement.scrollWidth, window.innerWidth]")
    wider = page.evaluate(WIDER_THAN_THE_WINDOW)
    # The page scrolls inside Voila's container: grow the window to its height for the whole page in one image.
    tallest = page.evaluate("() => Math.max(...[...document.querySelectorAll('body, body *')]"
                            ".map(e => e.scrollHeight))")
    page.set_viewport_size({"width": width, "height": min(max(tallest, height), 30_000)})
    page.wait_for_timeout(500)
    page.screenshot(path=str(SCREENSHOTS / f"app-{width}x{height}.png"), full_page=True)
    page.close()
    assert scroll_width <= inner_width, f"the page is {scroll_width} px wide in a {inner_width} px window: {wider}"


def test_the_benchmarks_browser_step_runs_on_the_open_chapter(page, capsys):
    """``make bench``'s browser step, on a tiny input (last here: it moves chapter 1's slider and answers its first
    exercise)."""
    import benchmark

    benchmark.bench_calculator_in_browser(repeat=2, page=page)
    assert re.search(r"calculator update in Chromium .*: median [\d.]+ ms over 2", capsys.readouterr().out)


# Sizes as the reader sees them: each text of a chart (its font size times the chart's scale), its box, the widgets'
# label size, and the answer box: whether a long answer and the placeholder fit inside it.
SIZES = """([chart, input, answer]) => {
    const svg = document.querySelector(chart), r = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')].map(t => {
        const b = t.getBoundingClientRect();
        const m = t.getScreenCTM();  // the y label is turned: its scale is the length of a column
        return {text: t.textContent, px: Math.hypot(m.a, m.b) * parseFloat(getComputedStyle(t).fontSize),
                left: b.left, right: b.right, top: b.top, bottom: b.bottom};
    });
    const label = document.querySelector('.llmest-training-planner .widget-label');
    const style = getComputedStyle(input), ctx = document.createElement('canvas').getContext('2d');
    ctx.font = `${style.fontSize} ${style.fontFamily}`;
    const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const entry = input.getBoundingClientRect();
    return {width: r.width, height: r.height, left: r.left, right: r.right, top: r.top, bottom: r.bottom, texts,
            label: parseFloat(getComputedStyle(label).fontSize), window: window.innerWidth, room,
            answer: ctx.measureText(answer).width, placeholder: ctx.measureText(input.placeholder).width,
            entry_right: entry.right};
}"""


def _overlapping(texts) -> list:
    return [(a["text"], b["text"]) for i, a in enumerate(texts) for b in texts[i + 1:]
            if a["left"] < b["right"] - 1 and b["left"] < a["right"] - 1 and a["top"] < b["bottom"] - 1
            and b["top"] < a["bottom"] - 1]


@pytest.mark.parametrize("width", [390, 1280], ids=["phone", "desktop"])
def test_the_chart_and_the_answer_box_read_well_on_a_phone_and_a_desktop(compute_page, width):
    """Chapter 3's training planner chart at most 340 px wide, its text one size, never above the labels' 13 px nor
    under 10 px on a phone, each text inside the chart and clear of the others; exercise 3.2's box holds its
    placeholder and a long answer with its unit, inside the window. On a phone the file browser is folded away,
    as a reader on one would."""
    page = compute_page
    chart, answer = ".llmest-training-planner svg", "about 93,483 GPU-hours"
    entry = page.locator(".llmest-exercise", has_text="Exercise 3.2.").locator("input")
    left_stack = page.locator("#jp-left-stack")
    # The open side panel's tab folds it when clicked (Ctrl+B goes to whatever holds the focus).
    open_tab = page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current").first
    folded = width < 600 and left_stack.is_visible()
    tab_id = open_tab.get_attribute("data-id") if folded else None
    try:
        page.set_viewport_size({"width": width, "height": 900})
        if folded:
            page.keyboard.press("Escape")
            open_tab.click()
            left_stack.wait_for(state="hidden")
        entry.scroll_into_view_if_needed()
        page.locator(chart).scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        sizes = page.evaluate(SIZES, [chart, entry.element_handle(), answer])
    finally:
        if folded:
            page.locator(f'.jp-SideBar.jp-mod-left .lm-TabBar-tab[data-id="{tab_id}"]').click()
        page.set_viewport_size(READING)
    print(f"\n{width} px: chart {sizes['width']:.0f}×{sizes['height']:.0f}, text "
          f"{sorted({round(t['px'], 1) for t in sizes['texts']})} px, labels {sizes['label']} px, answer box "
          f"{sizes['room']:.0f} px for {sizes['answer']:.0f} and {sizes['placeholder']:.0f}")
    assert sizes["width"] <= 341 and sizes["right"] <= sizes["window"], sizes
    text_sizes = {round(t["px"], 2) for t in sizes["texts"]}
    assert len(text_sizes) == 1, f"one text size, not {text_sizes}"
    assert (10 if width < 600 else 12.5) <= text_sizes.pop() <= sizes["label"] + 0.01
    outside = [t["text"] for t in sizes["texts"] if t["left"] < sizes["left"] - 1 or t["right"] > sizes["right"] + 1
               or t["top"] < sizes["top"] - 1 or t["bottom"] > sizes["bottom"] + 1]
    assert not outside, f"clipped at the chart's edge: {outside}"
    assert not _overlapping(sizes["texts"]), _overlapping(sizes["texts"])
    assert sizes["entry_right"] <= sizes["window"]
    assert sizes["answer"] <= sizes["room"] and sizes["placeholder"] <= sizes["room"], sizes
