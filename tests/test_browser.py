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
from lab_pages import (BOXED_CHARACTERS, CHINESE_TEXT, CHROMIUM, HEADINGS, NOTEBOOKS, RAW_WIDGET, READING, SCREENSHOTS,
                       WIDER_THAN_THE_WINDOW, chromium, lab_server, open_chapter, screenshot, voila_server)
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
        box.locator("span", has_text=verdict.message.split(":")[0]).wait_for()


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
