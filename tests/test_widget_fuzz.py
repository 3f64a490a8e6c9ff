"""Every field of every calculator, and the entry of every exercise and of the timed session, set to bad values:
nothing escapes, a message clears the result, and a result shown without a message is sane.

Run as a script, it prints the outcome counts: ``python tests/test_widget_fuzz.py``."""

from __future__ import annotations

import html
import math
import re
from collections import Counter

import pytest

pytest.importorskip("ipywidgets")
import ipywidgets as w  # noqa: E402

from llmest import widgets as W  # noqa: E402
from llmest.core._validate import InputError  # noqa: E402
from llmest.learn.exercises import EXERCISES  # noqa: E402

INTS = [0, -1, 10**9, 10**30, -(10**30), 2**63]
FLOATS = [0.0, -1.0, 1e9, math.nan, math.inf, -math.inf, 1e308, 1e300, 1e-320]
TEXTS = ["", " ", "0", "-1", "nan", "inf", "-inf", "1e400", "1e-400", "1e300", "-7B", "1,2,3", "🙂", "--", "None", "7B" * 3,
         "x" * 32_000, "9" * 400, "1e9999999999", "0x10", "½", "١٢"]
CONFIGS = ["{not json", "[]", "null", "{}", "1", '"x"', "[" * 100_000, "\ufeff{}", '{"vocab_size": 1e400}',
           '{"model_type": "llama", "vocab_size": -1, "hidden_size": 4096, "num_hidden_layers": 32, '
           '"num_attention_heads": 32, "intermediate_size": 11008}', '{"a": ' * 5000 + "1" + "}" * 5000]
FEW_INTS, FEW_FLOATS, FEW_TEXTS = [0, -1, 10**9, 10**30], [0.0, -1.0, math.nan, math.inf], ["0", "-1", "nan", "1e400"]


def _numbers(*values):
    """Finite and >= 0 (None is no number)."""
    return all(x is None or (math.isfinite(x) and x >= 0) for x in values)


def _param(calc):
    c = calc.count
    return c is None or (c.total > 0 and _numbers(c.total, c.active, *c.parts.values()))


def _memory(p):
    b = p.breakdown
    return b is None or (b.total > 0 and _numbers(b.total, *b.parts.values(), p.plan.usable_bytes, p.smallest))


def _training(p):
    return p.result is None or (_numbers(*p.result.values()) and min(p.result["flops"], p.result["days"]) > 0)


def _roofline(p):
    e = p.estimate
    return e is None or (_numbers(e.step_seconds, e.memory_seconds, e.compute_seconds, e.tokens_per_s,
                                  p.serving.usd_per_million_tokens, p.serving.memory.total) and e.tokens_per_s > 0)


def _serving(p):
    e = p.estimate
    return e is None or (_numbers(e.ttft_s, e.tpot_s, e.tokens_per_s, e.max_batch, e.memory_per_gpu_bytes,
                                  e.usd_per_million_input_tokens, e.usd_per_million_output_tokens)
                         and min(e.ttft_s, e.tpot_s, e.tokens_per_s) > 0)


def _capacity(p):
    c = p.plan
    return c is None or (_numbers(c.gpus, c.requests_per_s_per_gpu, c.usd_per_million_input_tokens,
                                  c.usd_per_million_output_tokens) and (c.gpus > 0) == c.met)


def _data(p):
    return p.result is None or (_numbers(*p.result.values()) and p.result["tokens"] > 0)


def _scaling(p):
    return p.optimum is None or (_numbers(*p.optimum) and min(p.optimum) > 0)


def _layouts(p):
    s = p.search
    if s is None:
        return True
    c = s.columns
    return len(s) > 0 and all(_numbers(*c[k][:50].tolist()) for k in ("memory_per_gpu_bytes", "step_time_s", "mfu"))


# calculator: (the fields showing its result, the attribute holding it, the check of a shown result)
CALCULATORS = {
    W.ParamCalculator: (("chart",), "count", _param),
    W.MemoryPlanner: (("bar", "verdict"), "breakdown", _memory),
    W.TrainingPlanner: (("summary", "chart"), "result", _training),
    W.RooflineExplorer: (("summary", "chart"), "estimate", _roofline),
    W.ServingPlanner: (("summary", "chart"), "estimate", _serving),
    W.CapacityPlanner: (("summary",), "plan", _capacity),
    W.DataPlanner: (("summary",), "result", _data),
    W.ScalingExplorer: (("summary", "chart"), "optimum", _scaling),
    W.LayoutExplorer: (("summary", "table", "chart"), "search", _layouts),
}

_NONSENSE = re.compile(r"\b([Nn]a[Nn]|[Ii]nf|[Ii]nfinity)\b|\$-|-\$|(?<![\w.-])-\d[\d.,]*\s*[kKMGTPE]?i?B\b")


def _text(markup: str) -> str:
    """The words shown, less the tags and what is quoted back from the entry."""
    return re.sub(r"'[^']*'", "", html.unescape(re.sub(r"<[^>]*>", " ", markup)))


def _bad_values(box, few=False):
    if isinstance(box, w.Dropdown):
        return []
    if isinstance(box, (w.Checkbox, w.ToggleButtons)):
        # a toggle's options are values, or (label, value) pairs where the label is not the value
        return ([o[1] if isinstance(o, tuple) else o for o in box.options] if isinstance(box, w.ToggleButtons)
                else [True, False])
    if isinstance(box, w.Textarea):
        return CONFIGS[:3] if few else CONFIGS
    if isinstance(box, w.Text):
        return FEW_TEXTS if few else TEXTS
    if isinstance(box, (w.IntText, w.IntSlider, w.BoundedIntText)):
        return FEW_INTS if few else INTS
    return FEW_FLOATS if few else FLOATS


def _outcome(calc, spec, field):
    outputs, attr, sane = spec
    errors = {name: label.value for name, label in calc.errors.items() if label.value}
    if calc.general_error.value:
        errors[None] = calc.general_error.value
    shown = [getattr(calc, name).value for name in outputs]
    if errors:
        if getattr(calc, attr) is not None or any(shown):
            return "stale"
        return "message" if field in errors or field is None else "misplaced"
    if getattr(calc, attr) is None or not sane(calc) or any(_NONSENSE.search(_text(v)) for v in shown):
        return "nonsense"
    return "sane"


def _boxes(calc):
    return dict(calc.inputs, model=calc.model) if isinstance(calc, W.ParamCalculator) else calc.inputs


def calculator_cases():
    """(calculator, dropdown setting, field, value): every bad value of every field alone, and every option of every
    dropdown with each other field at one of a few bad values in turn."""
    for cls in CALCULATORS:
        boxes = _boxes(cls())
        fields = [f for f, box in boxes.items() if not isinstance(box, w.Dropdown)]
        for field in fields:
            for value in _bad_values(boxes[field]):
                yield cls, None, field, value
        # a dropdown's options are values, or (label, value) pairs
        drops = [(drop, option[1] if isinstance(option, tuple) else option) for drop, box in boxes.items()
                 if isinstance(box, w.Dropdown) for option in box.options]
        for i, setting in enumerate(drops):
            yield cls, setting, None, None
            for j, field in enumerate(fields):
                few = _bad_values(boxes[field], few=True)
                yield cls, setting, field, few[(i + j) % len(few)]


def _reset(calc, defaults):
    """The calculator back at its defaults, or a new one where that fails."""
    try:
        for name, value in defaults.items():
            _boxes(calc)[name].value = value
    except Exception:  # noqa: BLE001 - an escape already counted
        return type(calc)()
    return calc if getattr(calc, CALCULATORS[type(calc)][1]) is not None else type(calc)()


def run_calculators(record=None):
    counts = Counter()
    made = {cls: cls() for cls in CALCULATORS}
    defaults = {cls: {name: box.value for name, box in _boxes(calc).items()} for cls, calc in made.items()}
    for cls, setting, field, value in calculator_cases():
        calc = made[cls] = _reset(made[cls], defaults[cls])
        try:
            if setting is not None:
                _boxes(calc)[setting[0]].value = setting[1]
            if field is not None:
                _boxes(calc)[field].value = value
        except Exception as err:  # noqa: BLE001 - counting what escapes is the point
            outcome = f"raised {type(err).__name__}"
        else:
            outcome = _outcome(calc, CALCULATORS[cls], field)
        counts[outcome] += 1
        if record is not None and outcome not in ("message", "sane"):
            record.append((cls.__name__, setting, field, repr(value)[:40], outcome))
    return counts


def _verdict_outcome(html: str) -> str:
    if not html:
        return "no verdict"
    if "answer ==" in _text(html):  # the library's name for the entry, where the reader sees no name
        return "unlabelled"
    return "nonsense" if _NONSENSE.search(_text(html)) else "message"


def _press_enter(entry):
    """Enter in the entry, as the page sends it: a custom "submit" message over the widget's comm."""
    entry._handle_msg({"content": {"data": {"method": "custom", "content": {"event": "submit"}}}, "buffers": []})


def run_exercises(record=None):
    """Each text typed in each exercise, checked by the Check button or, every other text, by Enter."""
    counts = Counter()
    for ex in EXERCISES.values():
        box = ex.widget()
        for i, text in enumerate(TEXTS):
            box.entry.value = text
            try:
                if i % 2:
                    _press_enter(box.entry)
                else:
                    for handler in box.check_button._click_handlers.callbacks:
                        handler(box.check_button)
            except Exception as err:  # noqa: BLE001
                outcome = f"raised {type(err).__name__}"
            else:
                outcome = _verdict_outcome(box.verdict.value)
            counts[outcome] += 1
            if record is not None and outcome != "message":
                record.append((ex.key, repr(text)[:40], outcome))
    return counts


def run_timed(record=None):
    counts = Counter()
    for timed_out in (False, True):
        for text in TEXTS:
            session = W.TimedSession(n=1, seed=1)
            session.start_button.click()
            session.entry.value = text
            try:
                if timed_out:
                    session.answer(text, timed_out=True)
                else:
                    for handler in session.submit._click_handlers.callbacks:
                        handler(session.submit)
            except Exception as err:  # noqa: BLE001
                outcome = f"raised {type(err).__name__}"
            else:
                outcome = _verdict_outcome(session.verdict.value)
            counts[outcome] += 1
            if record is not None and outcome != "message":
                record.append(("timed", timed_out, repr(text)[:40], outcome))
    return counts


ARGUMENTS = [None, "", "nonsense", True, -1, 0, 1.5, math.nan, math.inf, 10**30, []]


def run_constructors(record=None):
    """Each argument of each calculator set to a bad value: a named InputError, or a calculator whose message
    clears the result and whose result is sane."""
    import inspect

    counts = Counter()
    for cls in CALCULATORS:
        for name in inspect.signature(cls).parameters:
            for value in ARGUMENTS:
                try:
                    calc = cls(**{name: value})
                except InputError as err:
                    outcome = "named" if err.param == name else "misnamed"
                except Exception as err:  # noqa: BLE001
                    outcome = f"raised {type(err).__name__}"
                else:
                    outcome = _outcome(calc, CALCULATORS[cls], None)
                counts[outcome] += 1
                if record is not None and outcome not in ("named", "message", "sane"):
                    record.append((cls.__name__, name, repr(value), outcome))
    return counts


def test_no_calculator_input_escapes_or_leaves_a_stale_or_nonsense_result():
    bad = []
    counts = run_calculators(bad)
    assert not bad, f"{len(bad)} bad outcomes of {sum(counts.values())}: {bad[:20]}"


def test_a_bad_constructor_argument_is_named():
    bad = []
    run_constructors(bad)
    assert not bad, bad[:20]


def test_no_exercise_entry_escapes():
    bad = []
    run_exercises(bad)
    assert not bad, bad[:20]


def test_no_timed_session_entry_escapes():
    bad = []
    run_timed(bad)
    assert not bad, bad[:20]


if __name__ == "__main__":
    import sys
    import time

    for run in (run_calculators, run_constructors, run_exercises, run_timed):
        start, bad = time.perf_counter(), []
        counts = run(bad)
        print(run.__name__, dict(counts), f"{time.perf_counter() - start:.1f} s")
        if "-v" in sys.argv:
            for row in Counter(bad).most_common():
                print("   ", row)
