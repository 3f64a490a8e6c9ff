"""The memory and data tables' texts in Chinese: the conventions' "used by", the weight formats' notes and the measured
texts' names and licences read in Chinese under speaking("zh"), and stay English, as stored, outside it."""

import json
import re

from llmest import data as dt
from llmest import memory as mem
from llmest import tables
from llmest.book.edition import english_prose
from llmest.core.i18n import speaking
from llmest.catalog.corpora import measure

CHINESE = re.compile(r"[\u4e00-\u9fff]")


def _column(table, index) -> list[str]:
    return [str(row[index]) for row in table.rows]


def test_conventions_used_by_in_chinese():
    with speaking("zh"):
        shown = _column(tables.conventions(), 6)
    assert len(shown) == len(mem.CONVENTIONS)
    assert all(CHINESE.search(text) and not english_prose(text) for text in shown), shown
    assert _column(tables.conventions(), 6) == [c.used_by for c in mem.CONVENTIONS.values()]
    assert mem.CONVENTIONS["mixed"].used_by.startswith("mixed precision as the ZeRO paper counts it")


def test_weight_format_notes_in_chinese():
    with speaking("zh"):
        shown = _column(tables.weight_formats("llama-2-7b"), 3)
    notes = [f.note for f in mem.WEIGHT_FORMATS.values()]
    assert [bool(text) for text in shown] == [bool(note) for note in notes]
    assert all(CHINESE.search(text) and not english_prose(text) for text in shown if text), shown
    assert "128" in shown[list(mem.WEIGHT_FORMATS).index("int4")]
    assert _column(tables.weight_formats("llama-2-7b"), 3) == notes


def test_measured_texts_in_chinese_and_the_file_english():
    stored = json.loads(measure.TABLE.read_text(encoding="utf-8"))
    with speaking("zh"):
        shown = [(row["name"], row["licence"]) for row in dt.MEASURED.values()]
        assert dt.MEASURED["english"]["bytes"] == stored["english"]["bytes"]
    for name, licence in shown:
        assert CHINESE.search(name) and not english_prose(name), name
        assert not english_prose(licence), licence
    assert [(row["name"], row["licence"]) for row in dt.MEASURED.values()] == \
        [(row["name"], row["licence"]) for row in stored.values()]
    assert dt.MEASURED == stored
    assert {kind: (s["name"], s["licence"]) for kind, s in measure.SOURCES.items()} == \
        {kind: (row["name"], row["licence"]) for kind, row in stored.items()}
