"""The language the workbook speaks: English, the source, or Chinese from catalogs keyed by the English text.

``set_language("zh")`` switches what the library shows a reader (exercises, verdicts, hints, widgets, drills,
worksheets) to Chinese; the API's names stay English. In the library, ``_("...")`` translates a string where it is
shown; ``N_("...")`` marks a string defined ahead of time (a module constant) for the catalog, to be passed through
``_`` where it is shown. Both take a literal, so the catalog can be extracted from the source; values go in with
``.format``: ``_("{n} GPUs fit").format(n=n)``. ``C_`` and ``NC_`` do the same for a word whose Chinese depends on
where it stands (gettext's message context). The catalogs are ``llmest/locale/zh_CN/*.po``, compiled to ``.mo``
by ``python -m llmest.book.edition update``; an entry missing or fuzzy (its English changed) shows the English.

In Chinese no space follows a full-width bracket or punctuation mark ("235B（2350亿）token", not "235B（2350亿） token")
and none stands between two Chinese characters ("8.91 天与 8.91 天相差"), while Chinese and Latin letters or digits are
spaced ("7B 模型"). A value put into a translated text can end in a full-width bracket (a count's Chinese reading), a
Chinese unit (天) or a digit, so the rule is kept where the text is filled in: ``_`` and ``C_`` give a text whose
``.format`` applies :func:`tidy`, and a unit's label is joined to its number with :func:`spaced`.
"""

from __future__ import annotations

import contextlib
import functools
import gettext
import re
import unicodedata
from pathlib import Path

from .errors import InputError

LANGUAGES = {"en": "English", "zh": "中文"}
CATALOGS = Path(__file__).resolve().parents[1] / "locale" / "zh_CN"
# Fonts with Chinese glyphs, most common first (Linux, macOS, Windows), for plots in the Chinese edition.
CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Zen Hei",
             "PingFang SC", "Microsoft YaHei", "SimHei")
_current = {"language": "en"}


def set_language(language: str) -> None:
    """Show the library's text in ``language``: "en" (English) or "zh" (Chinese)."""
    if not isinstance(language, str) or language not in LANGUAGES:
        raise InputError("language", f"language == {language!r:.80}, must be one of 'en' (English) or 'zh' (Chinese).")
    _current["language"] = language
    if language == "zh":
        _use_cjk_font()


def language() -> str:
    return _current["language"]


@contextlib.contextmanager
def speaking(language: str):
    """Within the block, speak ``language``; the previous language afterwards."""
    before = _current["language"]
    set_language(language)
    try:
        yield
    finally:
        _current["language"] = before


@functools.cache
def _translations() -> gettext.NullTranslations:
    chain = gettext.NullTranslations()
    for path in sorted(CATALOGS.glob("*.mo")):
        with path.open("rb") as handle:
            catalog = gettext.GNUTranslations(handle)
        catalog.add_fallback(chain)
        chain = catalog
    return chain


# A space after a full-width bracket or punctuation mark (or just inside an opening bracket), or between two Chinese
# characters (a figure's unit and the next word: "8.91 天 与"); a run of spaces (a column's padding), a space before a
# line's end and the one after a chapter's number ("第3章 反向预算", a heading) are left alone.
_SPACE_CHINESE_DOES_NOT_TAKE = re.compile(r"(?<=[（）、，。：；！？]) (?=[^\s])|(?<=[\u4e00-\u9fff])(?<!章) (?=[\u4e00-\u9fff])")


def tidy(text: str) -> str:
    """Chinese as its spacing rule writes it: no space after a full-width bracket or punctuation mark, nor between
    two Chinese characters ("235B（2350亿） token" -> "235B（2350亿）token", "8.91 天 与" -> "8.91 天与"). English is
    left as it is."""
    if _current["language"] == "en":
        return text
    return _SPACE_CHINESE_DOES_NOT_TAKE.sub("", text)


def spaced(number: str, label: str) -> str:
    """A number and the label after it: '7.6 days', '7B 模型', '235B（2350亿）token' (no space after a full-width
    bracket); the number alone where there is no label."""
    return tidy(f"{number} {label}") if label else number


class _Chinese(str):
    """A translated text: filling it in with ``.format`` keeps the Chinese spacing rule (:func:`tidy`)."""

    __slots__ = ()

    def format(self, *args, **kwargs) -> str:
        return tidy(str.format(self, *args, **kwargs))

    def format_map(self, mapping) -> str:
        return tidy(str.format_map(self, mapping))


def _(message: str) -> str:
    """``message`` in the current language (the English where the catalog has no finished entry)."""
    if _current["language"] == "en" or not message:
        return message
    return _Chinese(_translations().gettext(message))


def N_(message: str) -> str:
    """Mark ``message`` for the catalog; it is translated where it is shown, with ``_``."""
    return message


def C_(context: str, message: str) -> str:
    """``message`` in the current language, as meant in ``context`` (a word that reads differently elsewhere:
    a unit's "GPUs" after a number is 张卡, a column's "GPUs" is GPU 数)."""
    if _current["language"] == "en" or not message:
        return message
    return _Chinese(_translations().pgettext(context, message))


def NC_(context: str, message: str) -> str:
    """Mark ``message`` for the catalog in ``context``; translated where shown, with ``C_``."""
    return message


def display_width(text: str) -> int:
    """The columns ``text`` takes in a terminal or a monospaced output: two for a wide (Chinese) character."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _use_cjk_font() -> None:
    """Put a font with Chinese glyphs first for matplotlib, where one is installed (else plots keep theirs)."""
    try:
        from matplotlib import font_manager, rcParams
    except ImportError:
        return
    installed = {font.name for font in font_manager.fontManager.ttflist}
    if not installed.intersection(CJK_FONTS):  # installed after matplotlib cached its font list
        for path in font_manager.findSystemFonts():
            if any(mark in path for mark in ("CJK", "wqy", "SourceHanSans", "PingFang", "msyh", "simhei")):
                with contextlib.suppress(Exception):  # a font file matplotlib cannot read is skipped
                    font_manager.fontManager.addfont(path)
        installed = {font.name for font in font_manager.fontManager.ttflist}
    found = [name for name in CJK_FONTS if name in installed]
    rcParams["font.sans-serif"] = found + [f for f in rcParams["font.sans-serif"] if f not in found]
    rcParams["axes.unicode_minus"] = False  # CJK fonts often lack U+2212
