"""The material's figures: each recomputed, each erratum explained, statuses pinned; every quote is the material's
own words, every stated number is written in its quote in the unit the figure shows, and every label matches what
the recompute returns."""

import inspect
import json
import math
import re
from pathlib import Path

import pytest

import llmest as le
from llmest import data as dt
from llmest import hardware, plots, runs
from llmest import plans
from llmest.book.material import STATUS_RULE, STATUSES, UNITS, Figure, convert

ROOT = Path(__file__).parents[1]
SEEDS = {path.stem: path.read_text(encoding="utf-8") for path in (ROOT / "tests/fixtures/material").glob("*.txt")}
FIGURES = le.material.figures()

# The verdicts this workbook teaches. A change to a formula that flips one of them must be looked at.
EXPECTED_ERRATA = {
    "004-1.2-table-30b",
    "000-1.3-optimizer", "000-ex3-bf16-total",
    "000-ex1-optimizer", "000-ex1-total",
    "000-ex3-kv", "004-2.2-activations", "004-2.3-activations",
    "004-2.3-70b-gpus", "004-2.3-kv-32",
    "000-2-a6000", "000-2-4090", "000-ex1-gpu-hours", "000-ex1-single-gpu", "000-ex1-256", "000-ex2-hours",
    "000-4.1-7b-hours", "000-4.1-7b-cost", "000-5-gpt3-hours", "000-5-gpt3-cost", "004-3.1-attention",
}
# Figures resting on an input the material does not give.
EXPECTED_DEPENDS = {"000-ex2-activations", "000-ex2-total", "000-4.2-qlora-7b", "000-4.3-7b-cost", "000-4.3-serving",
                    "000-4.1-ft-70b-time", "004-3.3-moe", "004-4.2-english", "004-4.2-chinese", "004-4.2-code",
                    "004-4.2-english-gb", "004-4.2-chinese-gb",
                    "000-ex2-lora", "000-ex2-optimizer", "000-ex3-bf16-gpus",
                    # 3 A100s with the 50-100 GB shared out, the material's 2 with one micro-batch a GPU recomputed
                    "000-ex1-gpus"}
# Judgements the literature weighs differently from the material.
EXPECTED_CONTESTED = {"004-4.1-epochs", "000-5-checkpointing", "004-3.2-mfu"}


def test_statuses_are_pinned():
    assert {f.key for f in FIGURES if f.status == "erratum"} == EXPECTED_ERRATA
    assert {f.key for f in FIGURES if f.status == "depends"} == EXPECTED_DEPENDS
    assert {f.key for f in FIGURES if f.status == "contested"} == EXPECTED_CONTESTED
    assert all(f.status in STATUSES for f in FIGURES)


@pytest.mark.parametrize("figure", FIGURES, ids=lambda f: f.key)
def test_every_figure_recomputes_to_a_number_and_names_its_source(figure):
    assert math.isfinite(figure.recomputed) and figure.recomputed > 0
    assert figure.document in le.material.DOCUMENTS and figure.section.startswith("§")
    assert figure.quote and figure.how and figure.claim


@pytest.mark.parametrize("figure", [f for f in FIGURES if f.status != "confirmed"], ids=lambda f: f.key)
def test_every_erratum_has_a_cause(figure):
    assert len(figure.cause_text) > 40
    label = {"erratum": "cause:", "depends": "so:", "contested": "so:"}[figure.status]
    assert label in figure.box()
    assert figure.stated_text in figure.box()


# ---------------------------------------------------------------------------------------------------------------
# The status rule, shown in every box
# ---------------------------------------------------------------------------------------------------------------

def _figure(stated, value, **kw):
    return Figure("test", 2, "000", "§3 test", "a test figure", "总计：~56-76 GB", stated, lambda: value,
                  "qlora_memory(...)", unit="bytes", **kw)


def test_a_value_4_percent_outside_the_range_is_an_erratum_under_the_default_tolerance():
    figure = _figure((56e9, 76e9), 53.8e9)
    assert figure.status == "erratum"
    assert "erratum: 3.93% below the material's range; confirmed would need within 1% of the material's range" \
        in figure.box()


def test_a_wider_tolerance_confirms_it_only_by_saying_so_in_the_box():
    figure = _figure((56e9, 76e9), 53.8e9, rel_tol=0.05)
    assert figure.status == "confirmed"
    assert "status:      confirmed: within 5% of the material's range" in figure.box()


def test_every_box_states_which_part_of_the_rule_it_meets_and_its_tolerance():
    for figure in FIGURES:
        status_line = figure.box().splitlines()[1]
        assert status_line.startswith(f"  status:      {figure.status}")
        if figure.status in ("confirmed", "erratum") and figure.stated is not None:
            assert figure.tolerance_text in status_line
    for status in STATUSES:
        assert f"{status}:" in STATUS_RULE


def test_one_sided_bounds_and_open_claims():
    assert _figure((None, 60e9), 53.8e9).status == "confirmed"
    assert _figure((60e9, None), 53.8e9).status == "erratum"
    assert _figure((60e9, None), 53.8e9).stated_text == "more than 60.0 GB"
    assert _figure(None, 53.8e9, verdict="erratum").status == "erratum"
    with pytest.raises(le.InputError, match="needs a verdict"):
        _figure(None, 53.8e9)
    with pytest.raises(le.InputError, match="only for a claim with no number"):
        _figure(56e9, 53.8e9, verdict="confirmed")
    with pytest.raises(le.InputError, match="unit == 'plain'"):
        Figure("t", 2, "000", "§3", "c", "q", 1, lambda: 1, "h", unit="plain")
    with pytest.raises(le.InputError, match="stated_in == 'weeks', must measure what unit == 'bytes' measures"):
        _figure(1, 1, stated_in="weeks")
    with pytest.raises(le.InputError, match="to_unit == 'weeks', must measure what 'bytes' measures"):
        convert(1, "bytes", "weeks")
    with pytest.raises(le.InputError, match="to_unit == 'wekes'.*Did you mean 'weeks'"):
        convert(1, "days", "wekes")


def test_a_contested_box_gives_the_material_and_the_literature_each_with_its_source():
    for figure in (f for f in FIGURES if f.status == "contested"):
        box = figure.box()
        assert DOCUMENTS_LINE(figure) in box
        assert len(figure.literature) >= 2
        for says, source in figure.literature:
            assert f"literature:  {says} ({source})" in box
            assert re.search(r"et al\. (19|20)\d\d", source) and "arXiv" in source


def DOCUMENTS_LINE(figure):
    return f"source:      {le.material.DOCUMENTS[figure.document]}, {figure.section}"


def test_qlora_total_depends_on_the_batch_and_says_which_batches_give_the_material_range():
    figure = le.material.get("000-ex2-total")
    assert figure.status == "depends" and figure.rel_tol == 0.01  # no hidden tolerance
    # 54.0 GB at a micro-batch of 1, each more sequence 3.89 GB of checkpointed activations (the RMSNorms' FP32
    # copies of the recomputed layer included): 57.9 GB at 2, 73.5 GB at 6, 77.4 GB at 7, past the 76 GB.
    assert "micro-batches of 2-6 give 57.9 GB to 73.5 GB, inside the material's 56-76 GB" in figure.cause_text


def test_the_kv_cache_of_one_request_rounds_to_the_material_one_significant_figure():
    figure = le.material.get("004-2.3-kv-request")
    assert figure.recomputed == 2 * 80 * 2048 * 8192 * 2 == 5 * 2**30
    assert figure.status == "confirmed" and "within 10% of the material's figure" in figure.box()
    assert "one significant figure" in figure.cause_text


def test_the_moe_figure_names_the_inputs_it_assumes():
    figure = le.material.get("004-3.3-moe")
    assert figure.status == "depends" and figure.stated == (None, 1) and figure.stated_unit == "months"
    assert all(word in figure.depends_on for word in ("30B", "20 tokens per parameter", "512"))
    # 6 × 30e9 × 600e9 / (512 × 200e12 × 0.5) / 86,400 days
    assert figure.recomputed == pytest.approx(6 * 30e9 * 600e9 / (512 * 1e14) / 86_400)


# ---------------------------------------------------------------------------------------------------------------
# Quotes are the material's words; stated numbers are the quote's, in the unit the figure shows
# ---------------------------------------------------------------------------------------------------------------

def _squash(text):
    return re.sub(r"\s+", "", text)


def test_the_seed_copies_are_both_documents():
    assert set(SEEDS) == set(le.material.DOCUMENTS)


@pytest.mark.parametrize("figure", FIGURES, ids=lambda f: f.key)
def test_every_quote_is_the_material_words(figure):
    """Whitespace aside, each part of the quote ("…" leaves words out) occurs in its document, in order."""
    text, position = _squash(SEEDS[figure.document]), 0
    for part in figure.quote.split("…"):
        found = text.find(_squash(part), position)
        assert found >= 0, f"{part!r} is not in seed {figure.document}"
        position = found + len(_squash(part))


_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
_CHINESE_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_NUMBER = re.compile(
    r"(?P<den>[一二两三四五六七八九十])分之(?P<num>[一二两三四五六七八九十])"
    r"|(?P<cn>[一二两三四五六七八九十])"
    r"|(?P<digits>\d[\d,]*(?:\.\d+)?)(?:e(?P<exp>[+-]?\d+)|(?P<power>[⁰¹²³⁴⁵⁶⁷⁸⁹]+))?"
    r"(?:×10(?P<ten>[⁰¹²³⁴⁵⁶⁷⁸⁹]+))?")
_CHINESE_SCALES = {"万亿": 1e12, "亿": 1e8, "万": 1e4}
_LATIN_SCALES = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}
_WORD_SCALES = {"GB": 1e9, "MB": 1e6, "TB": 1e12, "KB": 1e3, "%": 0.01}
_WORDS = sorted({w for u in UNITS.values() for w in u.words if w != "$"}, key=len, reverse=True)
_RANGE = re.compile(r"\s*[-~～到至]\s*")


def quote_numbers(quote):
    """Each number the quote writes: (value with its scale words applied, the unit word after it or None, '$'
    before it). In "30-50%", "65~70亿" and "一到两周" the first number takes the second's scale and unit."""
    found = []
    for match in _NUMBER.finditer(quote):
        if match["den"]:
            value = _CHINESE_DIGITS[match["num"]] / _CHINESE_DIGITS[match["den"]]
        elif match["cn"]:
            value = _CHINESE_DIGITS[match["cn"]]
        else:
            value = float(match["digits"].replace(",", ""))
            if match["exp"]:
                value *= 10 ** int(match["exp"])
            if match["power"]:
                value **= int(match["power"].translate(_SUPERSCRIPT))
            if match["ten"]:
                value *= 10 ** int(match["ten"].translate(_SUPERSCRIPT))
        end, scale = match.end(), None
        rest = quote[end:]
        chinese = next((s for s in _CHINESE_SCALES if rest.lstrip().startswith(s)), None)
        if chinese:
            scale, end = _CHINESE_SCALES[chinese], end + len(rest) - len(rest.lstrip()) + len(chinese)
        elif rest[:1] in _LATIN_SCALES and not re.match(r"[A-Za-z]", rest[1:2]):   # 7B, 336K; not 160 MB
            scale, end = _LATIN_SCALES[rest[0]], end + 1
        after = quote[end:].lstrip()
        word = next((w for w in _WORDS if after.startswith(w)), None)
        found.append(dict(value=value, scale=scale, word=word, dollar=quote[:match.start()].endswith("$"),
                          start=match.start(), end=end))
    for first, second in zip(found, found[1:]):
        if _RANGE.fullmatch(quote[first["end"]:second["start"]]):
            first["scale"] = first["scale"] or second["scale"]
            first["word"] = first["word"] or second["word"]
            second["dollar"] = second["dollar"] or first["dollar"]
    return [(n["value"] * (n["scale"] or 1) * _WORD_SCALES.get(n["word"], 1), n["word"], n["dollar"])
            for n in found]


def _units_of(word, dollar):
    """The units whose words the quote uses after a number (None: it names none)."""
    if word is not None:
        return {name for name, unit in UNITS.items() if word in unit.words}
    return {"USD", "USD/month"} if dollar else None


def test_quote_numbers_reads_the_material_notations():
    assert quote_numbers("一到两周内完成") == [(1, "周", False), (2, "周", False)]
    assert quote_numbers("约 14,022 天 / 38.4 年") == [(14022, "天", False), (38.4, None, False)]
    assert quote_numbers("65~70亿")[0][0] == pytest.approx(6.5e9)
    assert quote_numbers("6×7×10⁹×10¹² 4.2×10²²")[-1][0] == pytest.approx(4.2e22)
    assert quote_numbers("~$160K-240K") == [(160e3, None, True), (240e3, None, True)]
    assert quote_numbers("MFU：通常 30-50%") == [(0.3, "%", False), (0.5, "%", False)]
    assert quote_numbers("降到原来的四分之一")[0][0] == 0.25
    assert quote_numbers("需要 2x A100 80GB")[:2] == [(2, "x A100", False), (100, None, False)]


@pytest.mark.parametrize("figure", [f for f in FIGURES if f.stated is not None], ids=lambda f: f.key)
def test_every_stated_number_is_written_in_its_quote_in_the_unit_shown(figure):
    """No invented range: each bound of ``stated`` is a number the quote writes (unless the box says how it
    follows from the quote), and where the quote names its unit, that is the unit the figure shows it in."""
    if figure.stated_note:
        assert figure.stated_note in figure.box()
        return
    numbers = quote_numbers(figure.quote)
    for bound in (b for b in figure.bounds if b is not None):
        matches = [(word, dollar) for value, word, dollar in numbers if math.isclose(value, bound, rel_tol=1e-9)]
        assert matches, f"{bound:g} is not written in {figure.quote!r}"
        units = [_units_of(word, dollar) for word, dollar in matches]
        assert any(u is None or figure.stated_unit in u for u in units), \
            f"{figure.quote!r} writes {bound:g} in {units}, the figure shows it in {figure.stated_unit!r}"


def test_weeks_are_shown_in_weeks_from_a_recompute_in_days():
    figure = le.material.get("004-3.2-weeks")
    days = le.material.get("004-3.2-days").recomputed
    assert figure.stated == (1, 2) and figure.unit == "days" and figure.stated_unit == "weeks"
    assert figure.recomputed == days and figure.compared == pytest.approx(days / 7)
    assert "1 to 2 weeks" in figure.box() and f"1.09 weeks ({days:.2g} days)" in figure.box()
    assert convert(7.6, "days", "weeks") == pytest.approx(7.6 / 7)
    assert convert(1, "months", "days") == pytest.approx(365 / 12)


# Library names carry their unit (DESIGN: units in names). A ``how`` that begins with a call of such a function,
# with no arithmetic after it, says the unit its figure's recompute returns.
_NAME_UNITS = [(re.compile(pattern), unit) for pattern, unit in [
    (r"_bytes_per_param$", "bytes/param"), (r"_per_gb$", "tokens/GB"), (r"_flops_per_s$", "FLOP/s"),
    (r"_flops$", "FLOPs"), (r"_bytes(_for|_rule)?$", "bytes"), (r"_days$", "days"), (r"_seconds$", "seconds"),
    (r"^gpu_hours$", "GPU-hours"), (r"^days$", "days"), (r"^seconds$", "seconds"), (r"_tokens$", "tokens"), (r"_params$", "parameters"), (r"_gpus$", "GPUs"),
    (r"mfu$", "fraction")]]


def _leading_call(how):
    """The identifiers of the call chain ``how`` begins with (``a.b(...).c[...]``) and the text after it."""
    names, i = [], 0
    while True:
        match = re.match(r"[A-Za-z_]\w*", how[i:])
        if not match:
            break
        names.append(match[0])
        i += match.end()
        while i < len(how) and how[i] in "([":
            depth, close = 0, {"(": ")", "[": "]"}[how[i]]
            for j in range(i, len(how)):
                depth += {how[i]: 1, close: -1}.get(how[j], 0)
                if depth == 0:
                    break
            i = j + 1
        if how[i:i + 1] != ".":
            break
        i += 1
    return names, how[i:]


def _how_unit(how):
    names, rest = _leading_call(how)
    if re.search(r"\s[×·*/+−-]\s", rest):
        return None, None
    units = [(name, unit) for name in names for pattern, unit in _NAME_UNITS if pattern.search(name)]
    return units[-1] if units else (None, None)


def _reachable_names(fn, seen=None):
    """The names a function's code uses, following the material's own helpers and closures, and the names in the
    assignment of each module constant it reads (``_MIXED = mem.state_bytes_per_param(...)``)."""
    seen = set() if seen is None else seen
    names, codes = set(), [fn.__code__]
    while codes:
        code = codes.pop()
        names |= set(code.co_names)
        codes += [k for k in code.co_consts if inspect.iscode(k)]
    module = inspect.getsource(inspect.getmodule(fn))
    for name in list(names):
        assignment = re.search(rf"^{re.escape(name)} = (.*)$", module, re.M)
        if assignment:
            names |= set(re.findall(r"\w+", assignment[1]))
    helpers = [fn.__globals__.get(name) for name in names] + [c.cell_contents for c in fn.__closure__ or ()]
    for helper in helpers:
        if inspect.isfunction(helper) and helper.__module__.startswith("llmest.book.material") and helper not in seen:
            seen.add(helper)
            names |= _reachable_names(helper, seen)
    return names


@pytest.mark.parametrize("figure", FIGURES, ids=lambda f: f.key)
def test_the_unit_a_figure_declares_is_the_unit_its_computation_returns(figure):
    name, unit = _how_unit(figure.how)
    if UNITS[figure.unit].kind == "time" or figure.unit == "GPU-hours":
        assert unit is not None, f"a time must come from a function that names its unit, not {figure.how!r}"
    if unit is None:
        return
    assert figure.unit == unit, f"{figure.how!r} returns {unit}, the figure declares {figure.unit}"
    assert name in _reachable_names(figure.recompute), f"the recompute does not call {name}, as its how says"


def test_the_old_weeks_figure_would_fail():
    old = Figure("004-3.2-weeks", 3, "004", "§3.2", "the same run, in weeks", "一到两周内完成", (7, 14),
                 le.material.get("004-3.2-days").recompute, "training_days(...) in days", unit="weeks")
    assert _how_unit(old.how)[1] == "days" != old.unit
    assert not any(math.isclose(v, 7) for v, _, _ in quote_numbers(old.quote))


# ---------------------------------------------------------------------------------------------------------------
# The published MFU range
# ---------------------------------------------------------------------------------------------------------------

def test_the_mfu_range_covers_every_run_with_gpt3_and_palm():
    span = runs.mfu_range()
    assert [r.name for r in span.runs] == [r.name for r in runs.RUNS] and len(span.runs) == 21
    assert {"GPT-3 175B", "PaLM 540B"} <= {r.name for r in span.runs}
    # Llama 3.1 8B: 6 × N × 15e12 over its card's 1.46M H100-hours at 989 TFLOPS, with N the 7.5B weights that
    # multiply (the card's hours cover more than pre-training); OPT-175B, at the LLaMA paper's 34 days × 992 GPUs,
    # implies 20.8%
    assert span.low.name == "Llama 3.1 8B"
    low = next(r for r in runs.RUNS if r.name == "Llama 3.1 8B")
    assert span.low.mfu == pytest.approx(6 * low.n_params * 15e12 / (1.46e6 * 3600 * 989.4e12))
    opt = next(r for r in span.runs if r.name == "OPT-175B")
    assert opt.mfu == pytest.approx(6 * 175e9 * 180e9 / (34 * 992 * 86_400 * 312e12)) == pytest.approx(0.208, abs=5e-4)
    assert span.high.name == "LLaMA-13B" and span.high.mfu == pytest.approx(0.508, abs=0.005)
    gpt3 = next(r for r in span.runs if r.name == "GPT-3 175B")
    # GPT-3: 6 × 174.6e9 × 300e9 over Patterson et al.'s 10,000 V100s × 14.8 days at 125 TFLOPS
    assert gpt3.mfu == pytest.approx(6 * 174.6e9 * 300e9 / (10_000 * 14.8 * 86_400 * 125e12))
    assert "Patterson" in gpt3.basis and "gives none" in gpt3.basis
    palm = next(r for r in span.runs if r.name == "PaLM 540B")
    assert palm.mfu == pytest.approx(runs.PALM["published_mfu"][0], abs=0.0005)   # 45.7%, no attention term
    # The middle half: with 21 runs the inclusive quartiles are the 6th and 16th runs up, Llama 3 70B and LLaMA-7B;
    # the median is the 11th, DeepSeek-V3.
    ordered = sorted(span.runs, key=lambda r: r.mfu)
    assert span.assume == (ordered[5].mfu, ordered[15].mfu) and span.median == ordered[10].mfu
    assert [ordered[i].name for i in (5, 10, 15)] == ["Llama 3 70B", "DeepSeek-V3", "LLaMA-7B"]
    assert span.assume == pytest.approx((0.274, 0.428), abs=0.0005)
    assert str(span).startswith("13% (Llama 3.1 8B) to 51% (LLaMA-13B), middle half 27% to 43%, median 35%")
    assert "6·N FLOPs per token" in str(span)


@pytest.mark.parametrize("key", ["000-1.2-mfu", "004-3.2-mfu"])
def test_mfu_figures_quote_the_whole_range(key):
    figure = le.material.get(key)
    assert str(runs.mfu_range()) in figure.cause_text and "34% to 51%" not in figure.box()


def _sources():
    """(place, text) for every library module and every notebook cell of the maintained chapters."""
    for path in sorted((ROOT / "llmest").rglob("*.py")):
        yield str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")
    for path in sorted((ROOT / "solutions").glob("*.ipynb")):
        for i, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            yield f"{path.name} cell {i}", "".join(cell["source"])


def test_every_place_that_gives_the_published_range_calls_mfu_range():
    for place, text in _sources():
        if place != "llmest/catalog/runs.py":
            assert not re.search(r"\.mfu for \w+ in", text), place   # a list of MFUs to take a range of
            assert "34% to 51%" not in text, place


def test_published_mfu_plot_draws_every_run_and_the_material_band():
    import matplotlib
    matplotlib.use("Agg")
    ax = plots.published_mfu()
    span = runs.mfu_range()
    assert [t.get_text() for t in ax.get_yticklabels()] == [r.name for r in span.runs]
    bars = [p for p in ax.patches if p.get_height() < 1]
    assert sorted(b.get_width() for b in bars) == pytest.approx(sorted(r.mfu * 100 for r in span.runs))
    assert any(label.startswith("seed 000: 30-50%") for label in ax.get_legend_handles_labels()[1])


# ---------------------------------------------------------------------------------------------------------------
# Wording
# ---------------------------------------------------------------------------------------------------------------

def test_one_attribution_of_6nd():
    assert le.material.SIX_ND in le.material.get("000-5-gpt3-flops").cause_text
    for place, text in _sources():
        if "Kaplan" in text and "6·N·D" in text:   # the module that defines it, or the sentence itself
            assert "SIX_ND" in text if place.endswith(".py") else le.material.SIX_ND in " ".join(text.split()), place
        for match in re.finditer(r"Chinchilla formula|Chinchilla's formula|Chinchilla 公式", text):
            context = text[max(0, match.start() - 80):match.end()]
            assert "slip" in context or "calls" in context, place


def test_korthikanti_counts_are_analytic_not_measured():
    said = [place for place, text in _sources() for match in re.finditer(r"Korthikanti", text)
            if "measured" in text[match.start():match.start() + 120]]
    assert not said, f"Korthikanti et al.'s figures are an analytic count, not a measurement: {said}"


def test_the_4090_has_no_bf16_mode_at_330_tflops():
    # NVIDIA Ada GPU architecture whitepaper v2.02, Appendix A (GeForce RTX 4090, dense/sparse): FP16 tensor with
    # FP16 accumulate 330.3/660.6; FP16 and BF16 with FP32 accumulate 165.2/330.4.
    gpu = hardware.gpu("RTX 4090")
    assert gpu.bf16_flops_per_s == 165.2e12
    assert "330.3 is FP16 with FP16 accumulate" in gpu.note
    assert not re.search(r"BF16[^.;]*330\.3|330\.3[^.;]*BF16 with", gpu.note)


# ---------------------------------------------------------------------------------------------------------------
# Tables and lookups
# ---------------------------------------------------------------------------------------------------------------

def test_the_30b_row_is_21_9b_not_28_32b():
    figure = le.material.get("004-1.2-table-30b")
    assert figure.recomputed == 48 * 12 * 6144**2 + 32000 * 6144
    assert "21.7B" in figure.cause_text and "32.5B" in figure.cause_text


def test_table_and_unknown_keys():
    assert "004-1.1-total" in le.material.table(chapter=1)
    with pytest.raises(le.InputError, match="figure == '004-1.1-totl'.*Did you mean '004-1.1-total'"):
        le.material.get("004-1.1-totl")
    with pytest.raises(le.InputError, match="chapter == 99"):
        le.material.table(chapter=99)


def test_a_table_of_chosen_figures_keeps_their_order_and_names_an_unknown_key():
    lines = le.material.table(keys=["000-ex1-gpu-hours", "000-ex1-flops"]).splitlines()
    assert lines[1].startswith("000-ex1-gpu-hours") and "erratum" in lines[1] and "93,483 GPU-hours" in lines[1]
    assert lines[2].startswith("000-ex1-flops") and "confirmed" in lines[2]
    with pytest.raises(le.InputError, match="000-ex1-flop"):
        le.material.table(keys=["000-ex1-flop"])


def test_selective_recomputation_saves_what_korthikanti_et_al_report_for_gpt3():
    from llmest.formulas.memory import SELECTIVE_RECOMPUTE_PUBLISHED

    saved = le.material.get("000-5-checkpointing").recomputed
    assert saved == pytest.approx(SELECTIVE_RECOMPUTE_PUBLISHED["GPT-3 175B"][0], abs=0.01)


def test_figures_whose_verdict_rests_on_an_unstated_input_say_which_value_gives_the_material():
    """Judged by an input the material leaves out, these were once errata; the box now says what decides."""
    # Rank 64 on q_proj alone: 80 layers × 64 × (8,192 + 8,192) parameters × 2 bytes = 167.8 MB, near 160 MB.
    assert "q_proj alone (168 MB)" in le.material.get("000-ex2-lora").cause_text
    # 140 GB of weights on two 80 GB GPUs fits with nothing kept free (the material's 2), not with 20% free.
    assert "with nothing kept free two A100s hold them" in le.material.get("000-ex3-bf16-gpus").cause_text
    # 500 GB of text at the material's 20-25% yield is 2.0-2.5 TB: its range, the cautious end of 20-30%; the
    # workbook's own cleaned English (140B tokens at its measured rate), at a 25% yield, lands inside it too.
    raw = le.material.get("004-4.2-raw")
    english = 140e9 / dt.tokens_per_gb("english") * 1e9
    assert raw.status == "confirmed" and math.isclose(raw.recomputed, english / 0.25)
    assert "2.5 TB at 20% is exact" in raw.cause_text
    # "8+ A100" is a lower bound; the box says how far above it the states alone are (14).
    full = le.material.get("000-4.1-full-ft-70b")
    assert full.recomputed == math.ceil(70e9 * 16 / 80e9) == 14 and "too loose to plan with" in full.cause_text


def test_the_micro_batch_ranges_named_in_boxes_keep_inside_the_material_range():
    """'20-40 GB is what micro-batches of 6-11 keep' was off by one: 11 keeps 40.6 GB."""
    from llmest import memory as mem

    act = lambda b: plans.qlora_memory("llama-2-70b", micro_batch=b)["activations"]
    low, high = map(int, re.search(r"micro-batches of (\d+)-(\d+) keep", le.material.get("000-ex2-activations")
                                   .cause_text).groups())
    assert act(low - 1) < 20e9 <= act(low) and act(high) <= 40e9 < act(high + 1)
    total = lambda b: plans.qlora_memory("llama-2-7b", micro_batch=b).total
    low, high = map(int, re.search(r"micro-batches of (\d+)-(\d+) need", le.material.get("000-4.2-qlora-7b")
                                   .cause_text).groups())
    assert total(low - 1) < 16e9 <= total(low) and total(high) <= 20e9 < total(high + 1)
