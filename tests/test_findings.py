"""Every finding a chapter shows (``llmest.plans.findings``) is a result that shows itself from one report: its text,
HTML and JSON agree, its figures are plain data, and it reads in Chinese with no English prose. The samples are in
``tests/test_findings_<module>.py`` (``SAMPLES``: a function's name -> calls that return a finding), and every
public function of a findings module must have one, so a new finding cannot go untested."""

from __future__ import annotations

import html
import importlib
import importlib.util
import inspect
import json
import pkgutil
import re
from pathlib import Path

import pytest

from llmest.book.edition import english_prose
from llmest.core.i18n import speaking
from llmest.core.report import Finding, Report
from llmest.plans import findings as package

MODULES = [info.name for info in pkgutil.iter_modules(package.__path__)]


def _public(module_name: str) -> set:
    module = importlib.import_module(f"{package.__name__}.{module_name}")
    return {name for name, value in vars(module).items()
            if inspect.isfunction(value) and not name.startswith("_") and value.__module__ == module.__name__}


def _samples() -> dict:
    out = {}
    for name in MODULES:
        path = Path(__file__).with_name(f"test_findings_{name}.py")
        if not path.exists():
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for function, calls in module.SAMPLES.items():
            for i, call in enumerate(calls if isinstance(calls, (list, tuple)) else [calls]):
                out[f"{name}.{function}[{i}]"] = call
    return out


SAMPLES = _samples()


def _figures(text: str) -> set:
    return set(re.findall(r"\d+(?:,\d{3})*(?:\.\d+)?(?:e\d+)?", text))


@pytest.mark.parametrize("module", MODULES)
def test_every_finding_has_a_sample(module):
    sampled = {key.split(".", 1)[1].split("[")[0] for key in SAMPLES if key.startswith(f"{module}.")}
    assert _public(module) == sampled


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("key", sorted(SAMPLES))
def test_text_html_and_json_come_from_one_report(key, lang):
    with speaking(lang):
        finding = SAMPLES[key]()
        assert isinstance(finding, Finding)
        report = finding.report()
        text, page, data = str(finding), finding._repr_html_(), finding.to_dict()
    assert isinstance(report, Report)
    assert text == str(report) and page == report._repr_html_() and data == report.to_dict() == finding.figures
    assert json.loads(json.dumps(data)) == data  # plain JSON: numbers, text, lists and dicts
    shown = html.unescape(re.sub(r"<[^>]+>", " ", page))
    # a table's text form breaks a word longer than its column (a web address: ".../issues/2" and "55" on the next
    # line), so a figure of the text may be a piece of one of the page's
    assert all(figure in shown for figure in _figures(text)), _figures(text) - _figures(shown)
    if lang == "zh":
        assert english_prose(text) == [], text
