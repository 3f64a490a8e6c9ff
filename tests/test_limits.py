"""The command line and the calculators refuse the same value of the same quantity with the same limit: the figures
come from llmest.core.limits, not typed here."""

import html
import re

import pytest

from llmest import cli
from llmest.core._validate import InputError
from llmest.core.limits import LIMITS, allowed, bound, check_plausible

pytest.importorskip("ipywidgets")
from llmest.surfaces.widgets import DataPlanner, MemoryPlanner, RooflineExplorer, ServingPlanner, TrainingPlanner  # noqa: E402

TIME = ("time", "--params", "7B", "--tokens", "1T")


def inference_planner():
    planner = MemoryPlanner()
    planner.inputs["task"].value = "inference"
    return planner


# (table key, the command line up to the option, the calculator, its field)
SHARED = [
    ("gpus", (*TIME, "--gpus"), TrainingPlanner, "gpus"),
    ("tokens", ("time", "--params", "7B", "--tokens"), TrainingPlanner, "tokens"),
    ("n_params", ("time", "--tokens", "1T", "--params"), TrainingPlanner, "params"),
    ("n_params", ("data", "--params"), DataPlanner, "params"),
    ("seq_len", ("memory", "llama-2-7b", "--seq-len"), MemoryPlanner, "seq_len"),
    ("seq_len", ("memory", "llama-2-7b", "--task", "inference", "--seq-len"), inference_planner, "tokens"),
    ("seq_len", ("memory", "llama-2-7b", "--task", "inference", "--seq-len"), RooflineExplorer, "context"),
    ("dp", ("memory", "llama-2-7b", "--dp"), MemoryPlanner, "dp"),
    ("tp", ("memory", "llama-2-7b", "--task", "inference", "--tp"), RooflineExplorer, "tp"),
    ("pp", ("memory", "llama-2-7b", "--pp"), MemoryPlanner, "pp"),
    ("micro_batch", ("memory", "llama-2-7b", "--micro-batch"), MemoryPlanner, "micro_batch"),
    ("batch", ("memory", "llama-2-7b", "--task", "inference", "--batch"), inference_planner, "batch"),
    ("price_per_gpu_hour", (*TIME, "--price"), TrainingPlanner, "price"),
    ("tokens_per_param", ("data", "--params", "7B", "--tokens-per-param"), DataPlanner, "tokens_per_param"),
    ("prompt_tokens", ("serve", "llama-2-7b", "--output-tokens", "128", "--prompt-tokens"), ServingPlanner,
     "prompt_tokens"),
    ("output_tokens", ("serve", "llama-2-7b", "--prompt-tokens", "128", "--output-tokens"), ServingPlanner,
     "output_tokens"),
]
# Quantities that no calculator takes as a field (or only through a slider narrower than the limits).
CLI_ONLY = [
    ("rank", ("memory", "llama-2-7b", "--task", "qlora", "--rank")),
    ("days", ("data", "--gpus", "8", "--days")),
    ("peak_tflops", (*TIME, "--peak")),
    ("mfu", (*TIME, "--mfu")),
    ("cleaning_yield", ("data", "--params", "7B", "--cleaning-yield")),
    ("block_tokens", ("serve", "llama-2-7b", "--prompt-tokens", "128", "--output-tokens", "128", "--block-tokens")),
    ("requests_per_s", ("serve", "llama-2-7b", "--prompt-tokens", "128", "--output-tokens", "128",
                        "--requests-per-s")),
    ("global_batch_tokens", ("layout", "llama-2-7b", "--gpus", "8", "--seq-len", "4096", "--global-batch-tokens")),
    ("top", ("layout", "llama-2-7b", "--gpus", "8", "--seq-len", "4096", "--global-batch-tokens", "1048576",
             "--top")),
]
COUNTS = {"tokens", "n_params"}  # text fields, where a count is typed as "7B" or "1e+17"


def test_every_limit_is_applied_by_a_surface():
    assert {key for key, *_ in SHARED + CLI_ONLY} == set(LIMITS)


def _past(key: str, side: str):
    """A value just past a limit: one more than a whole upper one, else ten times beyond."""
    low, high, _ = LIMITS[key]
    if side == "low":
        return low / 10
    return high + 1 if isinstance(high, int) and key not in COUNTS else high * 10


def _typed(key: str, value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def cli_error(capsys, argv) -> str:
    with pytest.raises(SystemExit) as exit_:
        cli.main(list(argv))
    captured = capsys.readouterr()
    assert exit_.value.code == 2 and captured.out == ""
    return captured.err.strip()


def _enter(make, field, key, value):
    """A calculator with ``value`` entered in ``field`` (written out where the field takes text)."""
    calc = make()
    box = calc.inputs[field]
    box.value = _typed(key, value) if isinstance(box.value, str) else value
    return calc


def _text(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]*>", "", markup))


def widget_error(make, field, key, value) -> str:
    """The message beside ``field`` once ``value`` is entered there (and no other message); it begins with the
    field's label, as the reader sees it: "GPUs = 10,000,001, must be ..."."""
    calc = _enter(make, field, key, value)
    shown = {name: label.value for name, label in calc.errors.items() if label.value}
    assert calc.general_error.value == "" and list(shown) == [field], shown
    message = _text(shown[field])
    label = calc.inputs[field].description
    assert label and message.startswith(f"{label} = "), (label, message)
    return message


def _limit_text(key: str) -> str:
    return f"must be {allowed(key)}{LIMITS[key].why}."


IDS = [f"{key}-{field}" for key, _, _, field in SHARED]


@pytest.mark.parametrize("key, argv, make, field", SHARED, ids=IDS)
def test_past_the_upper_limit_both_refuse_it_alike(capsys, key, argv, make, field):
    value = _past(key, "high")
    line = cli_error(capsys, (*argv, _typed(key, value)))
    beside = widget_error(make, field, key, value)
    option = argv[-1]
    assert f"{option}: " in line and line.endswith(_limit_text(key))
    assert beside.endswith(_limit_text(key))
    assert line.split(" == ", 1)[1] == beside.split(" = ", 1)[1]  # the same value, the same limit, the same why


LOW = [case for case in SHARED if LIMITS[case[0]].low is not None]


@pytest.mark.parametrize("key, argv, make, field", LOW, ids=[f"{k}-{f}" for k, _, _, f in LOW])
def test_under_the_lower_limit_both_refuse_it(capsys, key, argv, make, field):
    value = _past(key, "low")
    line = cli_error(capsys, (*argv, _typed(key, value)))
    beside = widget_error(make, field, key, value)
    low = bound(LIMITS[key].low)
    assert f"{argv[-1]}: " in line and low in line  # the command line may add "Did you mean 7B?"
    assert beside.endswith(_limit_text(key))


@pytest.mark.parametrize("key, argv, make, field", [case for case in SHARED if case[0] != "tokens_per_param"],
                         ids=[f"{k}-{f}" for k, _, _, f in SHARED if k != "tokens_per_param"])
def test_at_the_upper_limit_neither_names_it(capsys, key, argv, make, field):
    high = LIMITS[key].high
    code = None
    try:
        code = cli.main([*argv, _typed(key, high), "--json"])
    except SystemExit as exit_:  # another check may refuse it, but not this limit
        code = exit_.code
    captured = capsys.readouterr()
    assert code in (0, 2) and allowed(key) not in captured.err
    calc = _enter(make, field, key, high)
    assert all(allowed(key) not in _text(label.value) for label in calc.errors.values())


@pytest.mark.parametrize("key, argv", CLI_ONLY, ids=[key for key, _ in CLI_ONLY])
def test_the_command_line_refuses_what_only_it_takes(capsys, key, argv):
    for side in ("low", "high"):
        if getattr(LIMITS[key], side) is not None:
            line = cli_error(capsys, (*argv, _typed(key, _past(key, side))))
            assert f"{argv[-1]}: " in line and line.endswith(_limit_text(key))


def test_the_help_states_the_limits(capsys):
    with pytest.raises(SystemExit):
        cli.main(["time", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for key in ("gpus", "price_per_gpu_hour"):
        assert f"up to {bound(LIMITS[key].high)}" in text
    assert f"from {bound(LIMITS['tokens'].low)} to {bound(LIMITS['tokens'].high)}" in text


def test_the_checker_names_the_caller_and_leaves_non_numbers_to_the_library():
    high = LIMITS["gpus"].high
    with pytest.raises(InputError) as err:
        check_plausible("gpus", high + 1, "GPUs")
    assert err.value.param == "GPUs" and str(err.value) == f"GPUs == {high + 1:,}, {_limit_text('gpus')}"
    for value in ("lots", None, True, float("nan"), float("inf"), 0, -1, high):
        check_plausible("gpus", value)  # not this checker's to refuse
    with pytest.raises(InputError) as err:
        check_plausible("seq_len", 10**400)
    assert err.value.param == "seq_len" and "an integer of about 401 digits" in str(err.value)
