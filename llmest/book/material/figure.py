"""A figure of the source material and its box; the registry that the chapter modules fill (see llmest.material)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ...core.registry import Registry
from ...core._validate import InputError, check_choice
from ...core.i18n import N_, _, display_width, speaking
from ...core.units import UNITS, Unit, format_count, format_percent
from .render import CAUSE_LABELS, LABELS, STATUS_WORDS, TITLES, Rendered, boxes_html, figure_html, shown, table_html

DOCUMENTS = {
    "000": N_("seed 000 训练资源估算题 (estimation exercises)"),
    "004": N_("seed 004 大模型资源估算 (the long article)"),
}
# How a box names what the material states, in its sentences.
_WHAT = {"figure": N_("the material's figure"), "bound": N_("the material's bound"),
         "range": N_("the material's range")}


class Shown(str):
    """A text defined in English that reads in the reader's language where it is printed, wrapped or formatted
    (``print``, ``str``, f-strings, ``textwrap.fill``); it compares as its English."""

    def __str__(self) -> str:
        return _(str.__str__(self))

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def expandtabs(self, tabsize: int = 8) -> str:  # textwrap starts from this
        return str(self).expandtabs(tabsize)


STATUS_RULE = Shown(N_(
    "confirmed: the recomputed value lies within the material's figure, range or bound, widened by the tolerance "
    "its box states. erratum: it lies outside; the box gives the cause. depends: the figure rests on an input the "
    "material does not give; the box names it, recomputes under a stated assumption and says which values would "
    "give the material's figure. contested: a judgement rather than arithmetic; the box gives what the material says "
    "and what the literature says, each with its source. A claim with no number shows the material's words only, "
    "and its box says why it is judged as it is."
))
STATUSES = ("confirmed", "erratum", "depends", "contested")

# 6·N·D, attributed the same way wherever the workbook names its source.
SIX_ND = N_("6·N·D is the count of Kaplan et al. 2020 (Scaling Laws for Neural Language Models, §2.1); "
            "Chinchilla (Hoffmann et al. 2022) uses it too")


def code_count(value: float) -> str:
    """A count written into a figure's recompute expression or the values of its label, which are made when the
    material is imported: the same in both editions, whatever language is spoken at that moment."""
    with speaking("en"):
        return format_count(value)


def _convertible(a: str, b: str) -> bool:
    return a == b or bool(UNITS[a].kind) and UNITS[a].kind == UNITS[b].kind


def convert(value, from_unit: str, to_unit: str):
    """A value in ``from_unit`` expressed in ``to_unit`` (both of one kind, such as days and weeks)."""
    check_choice("from_unit", from_unit, UNITS)
    check_choice("to_unit", to_unit, UNITS)
    if not _convertible(from_unit, to_unit):
        raise InputError("to_unit", _("to_unit == {to_unit}, must measure what {from_unit} measures.").format(
            to_unit=repr(to_unit), from_unit=repr(from_unit)))
    return value * UNITS[from_unit].scale / UNITS[to_unit].scale


@dataclass(frozen=True)
class Figure:
    key: str
    chapter: int
    document: str            # "000" or "004"
    section: str             # the material's heading, in Chinese, with its number
    claim: str               # what is claimed, in English
    quote: str               # the material's exact words ("…" where words are left out)
    stated: float | tuple | None  # a value, a (low, high) range (None for an open end), or None: no number
    recompute: Callable[[], float]
    how: str                 # the llmest computation, in words
    unit: str = "count"      # the unit of what ``recompute`` returns: a key of UNITS
    rel_tol: float = 0.01    # how far outside the material's figure "confirmed" reaches; shown in the box
    cause: str | Callable[[], str] = ""  # why the figures differ (required for an erratum), or a remark;
                                         # a callable when the text quotes recomputed numbers
    depends_on: str = ""     # the input the material leaves out, for a "depends" figure
    stated_in: str = ""      # the unit of ``stated`` and of the quote, when not ``unit``
    stated_note: str = ""    # how ``stated`` follows from the quote, when the quote does not write the number
    literature: tuple = ()   # ((what it says, its source), ...): makes the figure "contested"
    verdict: str = ""        # "confirmed" or "erratum" for a claim with no number, judged in words in ``cause``
    values: tuple = ()       # ((name, value), ...): the {placeholders} of the claim, filled in

    def __post_init__(self):
        object.__setattr__(self, "_claim", self.claim)   # the English as written: the catalog's key
        if self.values:
            object.__setattr__(self, "claim", self.claim.format(**dict(self.values)))
        for name in ("unit", "stated_in"):
            value = getattr(self, name)
            if value and value not in UNITS:
                raise InputError(name, _("{name} == {value}, must be one of {allowed}.").format(
                    name=name, value=repr(value), allowed=", ".join(UNITS)))
        if not _convertible(self.unit, self.stated_unit):
            raise InputError("stated_in", _("stated_in == {stated_in}, must measure what unit == {unit} measures.")
                             .format(stated_in=repr(self.stated_in), unit=repr(self.unit)))
        if self.stated is None and not (self.verdict or self.depends_on or self.literature):
            raise InputError("verdict", _("figure {key}: a claim with no number (stated=None) needs a verdict, "
                                          "depends_on or literature.").format(key=repr(self.key)))
        if self.verdict not in ("", "confirmed", "erratum") or (self.verdict and self.stated is not None):
            raise InputError("verdict", _("figure {key}: verdict == {verdict}, must be 'confirmed' or 'erratum', and "
                                          "only for a claim with no number (stated=None).").format(
                key=repr(self.key), verdict=repr(self.verdict)))

    @property
    def shown_claim(self) -> str:
        """The claim in the language shown."""
        translated = _(self._claim)
        return self.claim if translated == self._claim else translated.format(**dict(self.values))

    @property
    def stated_unit(self) -> str:
        return self.stated_in or self.unit

    @property
    def recomputed(self) -> float:
        """What ``recompute`` returns, in ``unit``."""
        return self.recompute()

    @property
    def compared(self) -> float:
        """The recomputed value in the material's unit, as it is compared with ``stated``."""
        return convert(self.recomputed, self.unit, self.stated_unit)

    @property
    def bounds(self) -> tuple:
        """(low, high) of the material's figure, either None for an open end."""
        return self.stated if isinstance(self.stated, tuple) else (self.stated, self.stated)

    @property
    def status(self) -> str:
        if self.literature:
            return "contested"
        if self.depends_on:
            return "depends"
        if self.stated is None:
            return self.verdict
        low, high = self.bounds
        value = self.compared
        inside = ((low is None or value >= low * (1 - self.rel_tol))
                  and (high is None or value <= high * (1 + self.rel_tol)))
        return "confirmed" if inside else "erratum"

    @property
    def ratio_to_stated(self) -> float:
        """The recomputed value over the nearer end of the material's figure, range or bound; 1 inside it."""
        low, high = self.bounds
        value = self.compared
        if low is not None and value < low:
            return value / low
        if high is not None and value > high:
            return value / high
        return 1.0

    def _fmt(self, value, unit: str | None = None) -> str:
        return UNITS[unit or self.stated_unit].show(value)

    @property
    def cause_text(self) -> str:
        return self.cause() if callable(self.cause) else _(self.cause)

    @property
    def stated_text(self) -> str:
        """The material's figure in its unit, and how it follows from the quote where the quote does not write it."""
        return self.stated_value_text + (_(" ({note})").format(note=_(self.stated_note)) if self.stated_note else "")

    @property
    def stated_value_text(self) -> str:
        """The material's figure in its unit: "2 to 28 days", "more than 4 months"; "" for a claim with no number."""
        if self.stated is None:
            return ""
        low, high = self.bounds
        if low is None:
            text = _("at most {value}").format(value=self._fmt(high))
        elif high is None:
            text = _("more than {value}").format(value=self._fmt(low))
        elif low == high:
            text = self._fmt(low)
        else:
            number = UNITS[self.stated_unit].format
            first = number(low) if UNITS[self.stated_unit].label else self._fmt(low)
            text = _("{low} to {high}").format(low=first, high=self._fmt(high))
        return text

    @property
    def recomputed_text(self) -> str:
        """The recomputed value in the material's unit, and in its own where the two differ: "1.09 weeks (7.6 days)"."""
        text = self._fmt(self.compared)
        if self.stated_unit != self.unit:
            text += f" ({self._fmt(self.recomputed, self.unit)})"
        return text

    @property
    def _what(self) -> str:
        return "figure" if self.bounds[0] == self.bounds[1] else ("bound" if None in self.bounds else "range")

    @property
    def tolerance_text(self) -> str:
        what = _(_WHAT[self._what])
        if self.rel_tol == 0:
            return (_("equal to {what}") if self._what == "figure" else _("inside {what}")).format(what=what)
        return _("within {tolerance} of {what}").format(tolerance=format_percent(self.rel_tol), what=what)

    @property
    def status_text(self) -> str:
        """Which part of STATUS_RULE the figure meets, with the tolerance it uses."""
        status = self.status
        if status == "contested":
            return _("contested: a judgement, not arithmetic; the material and the literature, each with its source")
        if status == "depends":
            return _("depends on {input}, which the material does not give").format(input=_(self.depends_on))
        if self.stated is None:
            return _("{status}: a claim with no number, judged in words (below)").format(status=_(STATUS_WORDS[status]))
        if status == "confirmed":
            return _("confirmed: {tolerance}").format(tolerance=self.tolerance_text)
        off = self.ratio_to_stated - 1
        said = {"off": format_percent(abs(off)), "what": _(_WHAT[self._what]), "tolerance": self.tolerance_text}
        if off < 0:
            return _("erratum: {off} below {what}; confirmed would need {tolerance}").format(**said)
        return _("erratum: {off} above {what}; confirmed would need {tolerance}").format(**said)

    @property
    def document_title(self) -> str:
        return _(DOCUMENTS[self.document])

    def box(self) -> str:
        """A short plain-text report: the status and its rule, the material's words, the recomputed figure, the
        literature where it is contested, and the cause."""
        material = f"{self.quote}  ->  {self.stated_text}" if self.stated_text else self.quote
        rows = [(LABELS["status"], self.status_text),
                (LABELS["source"], _("{document}, {section}").format(document=self.document_title,
                                                                     section=self.section)),
                (LABELS["material"], material)]
        rows += [(LABELS["literature"], f"{shown(says)} ({shown(source)})")
                 for says, source in self.literature]
        rows.append((LABELS["recomputed"], _("{value}  ({how})").format(value=self.recomputed_text,
                                                                        how=shown(self.how))))
        if self.cause_text:
            rows.append((CAUSE_LABELS[self.status], self.cause_text))
        lines = [_("{title}: {claim}").format(title=_(TITLES[self.status]), claim=self.shown_claim)]
        for label, text in rows:
            label = _("{label}:").format(label=_(label))  # a full-width colon in Chinese
            lines.append(f"  {label}{' ' * (12 - display_width(label))} {text}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.box()

    # Jupyter shows the box as HTML, and as its plain text (not the dataclass repr) where HTML is not read.
    def _repr_html_(self) -> str:
        return figure_html(self)

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(self.box())


FIGURES = Registry("figure")
register, get = FIGURES.register, FIGURES.lookup


def figures(chapter: int | None = None) -> list[Figure]:
    return [f for f in FIGURES.values() if chapter is None or f.chapter == chapter]


def boxes(keys=None, status: str | None = None) -> Rendered:
    """The boxes of the given keys in their order (of every figure when none are given), of one status when
    ``status`` is given: their plain texts a blank line apart, and in Jupyter one HTML output."""
    keys = None if keys is None else list(keys)
    rows = [get(key) for key in keys] if keys is not None else figures()
    if status is not None:
        check_choice("status", status, STATUSES)
        rows = [f for f in rows if f.status == status]
    if not rows:
        message = _("keys == {keys}, must name at least one figure of status {status}.") if status else _(
            "keys == {keys}, must name at least one figure.")
        raise InputError("keys", message.format(keys=repr(keys), status=repr(status)))
    return Rendered("\n\n".join(f.box() for f in rows), boxes_html(rows))


def table(chapter: int | None = None, keys=None) -> Rendered:
    """One line per figure (of a chapter, or the given keys in their order): key, status, stated, recomputed. It
    prints as text, and Jupyter shows it as an HTML table that also gives each figure's claim."""
    rows = [get(key) for key in keys] if keys is not None else figures(chapter)
    if not rows:
        raise InputError("chapter", _("chapter == {chapter}, no figures are registered for it.").format(
            chapter=chapter))
    cells = [(f.key, _(STATUS_WORDS[f.status]), f.stated_value_text or _("(no number)"), f._fmt(f.compared))
             for f in rows]
    head = [_(LABELS[name]) for name in ("figure", "status", "material", "recomputed")]
    key_w, stated_w, new_w = (max(len(c[i]) for c in cells + [tuple(head)]) for i in (0, 2, 3))
    lines = [f"{head[0]:<{key_w}}  {head[1]:<9}  {head[2]:>{stated_w}}  {head[3]:>{new_w}}"]
    for key, status, stated, new in cells:
        lines.append(f"{key:<{key_w}}  {status:<9}  {stated:>{stated_w}}  {new:>{new_w}}")
    return Rendered("\n".join(lines), table_html(rows, cells))

