"""The memory and data tables' texts in Chinese: the conventions' "used by", the weight formats' notes and the measured
texts' names and licences read in Chinese under speaking("zh"), and stay English, as stored, outside it."""

import json
import re

from llmest import data as dt
from llmest.book.edition import english_prose
from llmest.core.i18n import speaking
from llmest.catalog.corpora import measure

CHINESE = re.compile(r"[\u4e00-\u9fff]")


def _column(table, index) -> list[str]:
    return [str(row[index]) for row in table.rows]


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
