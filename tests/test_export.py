"""The static HTML export of the solved workbook."""

import shutil
import subprocess
import sys
from pathlib import Path

from llmest import export

ROOT = Path(__file__).resolve().parent.parent


def test_export_writes_a_readable_page_per_chapter_and_an_index(tmp_path):
    source = tmp_path / "solutions"
    source.mkdir()
    for name in ("01_parameters.ipynb", "05_interview_drills.ipynb"):
        shutil.copy(ROOT / "solutions" / name, source / name)
    pages = export.export(tmp_path / "html", source)
    assert [p.name for p in pages] == ["index.html", "01_parameters.html", "05_interview_drills.html"]
    index = pages[0].read_text()
    assert 'href="01_parameters.html"' in index and "Chapter 5 · Interview drills" in index
    chapter_1 = pages[1].read_text()
    assert "6,738,415,616" in chapter_1, "the stored worked answers are in the page"
    assert "data:image/png;base64," in chapter_1, "figures are embedded"
    assert "Correct:" in chapter_1, "the solved exercises and their checks are shown"
    # Chapter 1's key once answered old questions and the export published "Not yet" as the solved workbook.
    assert chapter_1.count("Correct:") >= 6 and "Not yet:" not in chapter_1
    for page in pages[1:]:
        text = page.read_text()
        assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text
        assert "application/vnd.jupyter.widget-view+json" not in text and export.WIDGET_NOTE in text
        assert '<span class="c1"># NBVAL' not in text, "the test markers are not shown in code"
    # An exercise's question stands where its widget was.
    assert "<b>Exercise 5.1.</b> The material" in pages[2].read_text()


def test_the_export_command_reports_a_missing_source(tmp_path):
    result = subprocess.run([sys.executable, "-c", "from llmest import export; export.export('out', 'nowhere')"],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 1 and "no notebooks in nowhere" in result.stderr
