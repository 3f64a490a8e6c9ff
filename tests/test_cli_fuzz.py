"""Command-line fuzz: every subcommand (params, memory for each task, time, data, drill) with bad values for each
option (0, -1, nan, inf, 1e400, 10**30, empty, text, "7B" for a whole number, 1.5, huge strings, paths that
cannot be written, broken config files) and with options the task does not use. Each command line must exit 2
with one error line that names the option (or the config key), or exit 0 with a sane answer (no nan, inf or
negative figure) where the value is a real setting; never another status, a traceback or a silent answer."""

import io
import json
import math
import re
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest

from llmest import cli
from llmest.formulas.readers.config_file import CONFIGS

FIXTURES = CONFIGS
HUGE = str(10**30)
INTS = ["0", "-1", "nan", "inf", "1e400", HUGE, "99999999999999999999", "", "abc", "7B", "1.5", "9" * 5000]
REALS = ["0", "-1", "nan", "inf", "1e400", "1e308", HUGE, "", "abc", "7B", "1e-300", "5e-324", "9" * 5000]
COUNTS = ["0", "-1", "nan", "inf", "1e400", "1e300", HUGE, "", "abc", "7", "70", "1.5", "7Q", "9" * 5000, "x" * 5000]
NAMES = ["", "abc", "7B", "H100", "-1", "x" * 5000]


@dataclass(frozen=True)
class Case:
    argv: tuple
    named: str          # the option (or config key) the error must name
    may_run: bool = False  # a real setting: exit 0 with a sane answer is right too

    def __str__(self):
        return " ".join(a if len(a) < 40 else f"{a[:20]}...({len(a)})" for a in self.argv)


def _options(base, options, ok=()):
    """A case for each option set to each of its bad values; ``ok`` holds (option, value) that may run."""
    return [Case((*base, option, value), option, (option, value) in ok)
            for option, values in options.items() for value in values]


def _configs(tmp: Path) -> list[tuple[str, str]]:
    """(path, what the error must name): unreadable files, and configs whose keys are wrong."""
    good = json.loads((FIXTURES / "llama-2-7b.json").read_text(encoding="utf-8"))
    files = {"not-json.json": ("{not json", "model"), "array.json": ("[1, 2]", "model"), "empty.json": ("", "model"),
             "binary.json": ("\udcff\udcfe", "model")}
    for key, value in [("hidden_size", -1), ("hidden_size", 0), ("num_attention_heads", "abc"),
                       ("num_hidden_layers", 10**30), ("vocab_size", float("inf")), ("intermediate_size", 1.5),
                       ("num_key_value_heads", 5)]:
        files[f"{key}-{value}.json"[:60]] = (json.dumps({**good, key: value}), key)
    digits = json.dumps({**good, "num_hidden_layers": 0}).replace('"num_hidden_layers": 0',
                                                                   '"num_hidden_layers": ' + "9" * 10_000)
    files["digits.json"] = (digits, "num_hidden_layers")  # too long for int(): Python's own error must not escape
    found = []
    for name, (text, named) in files.items():
        (tmp / name).write_bytes(text.encode("utf-8", "surrogateescape"))
        found.append((str(tmp / name), named))
    (tmp / "folder").mkdir()
    return found + [(str(tmp / "folder"), "model"), (str(tmp / "missing.json"), "model"), ("/proc/x.json", "model"),
                    ("/dev/null", "model")]


def cases(tmp: Path) -> dict[str, list[Case]]:
    """The bad command lines of each subcommand, by subcommand."""
    configs = _configs(tmp)
    found = {"params": [Case(("params", value), "model") for value in NAMES + ["lama-2-7b"]]
             + [Case(("params", path), named) for path, named in configs]}
    tasks = {"training": {"--zero": INTS, "--dp": INTS, "--tp": INTS, "--pp": INTS, "--micro-batch": INTS,
                          "--seq-len": INTS, "--convention": NAMES[:3], "--optimizer": NAMES[:3],
                          "--recompute": NAMES[:3], "--precision": NAMES[:3]},
             "inference": {"--seq-len": INTS, "--batch": INTS, "--tp": INTS, "--weights": NAMES[:3]},
             "qlora": {"--rank": INTS, "--micro-batch": INTS, "--seq-len": INTS, "--targets": NAMES[:3] + [
                 "q_proj,gate_proj", "q_proj,,x"]}}
    unused = {"training": {"--weights": ["int4"], "--batch": ["8"], "--rank": ["8"], "--targets": ["q_proj"]},
              "inference": {"--zero": ["3"], "--optimizer": ["sgd"], "--rank": ["8"], "--dp": ["1"], "--pp": ["1"],
                            "--micro-batch": ["1"], "--recompute": ["full"], "--convention": ["mixed"],
                            "--precision": ["fp8-te"]},
              "qlora": {"--zero": ["0"], "--dp": ["2"], "--tp": ["1"], "--batch": ["1"], "--weights": ["bf16"],
                        "--optimizer": ["adamw"]}}
    for task, options in tasks.items():
        base = ("memory", "llama-2-7b", "--task", task)
        options = {**options, "--margin": REALS + ["1", "1.5"], "--gpu": NAMES}
        real = {("--zero", "0"), ("--targets", "q_proj,gate_proj")}
        real |= {("--margin", x) for x in ("0", "1e-300", "5e-324")}
        found[f"memory {task}"] = (_options(base, options, real)
                                   + _options(base, unused[task])
                                   + [Case((*base, "--no-flash"), "--no-flash")] * (task == "inference")
                                   + [Case(("memory", path, "--task", task), named) for path, named in configs[:4]])
    found["memory training"] += [Case(("memory", "mixtral-8x7b", "--task", "qlora", "--targets", "q_proj,up_proj"),
                                      "--targets")]
    time = ("time", "--params", "7B", "--tokens", "1T")
    found["time"] = (_options(time, {"--gpus": INTS, "--mfu": REALS + ["1.5"], "--peak": REALS + ["200e12"],
                                     "--price": REALS, "--gpu": NAMES, "--precision": NAMES},
                              {("--price", x) for x in ("0", "1e-300", "5e-324")})
                     + _options(("time", "--tokens", "1T"), {"--params": COUNTS})
                     + _options(("time", "--params", "7B"), {"--tokens": COUNTS})
                     + _options(("time", "--tokens", "1T"), {"--model": NAMES})
                     + [Case(("time", "--tokens", "1T", "--model", path), named) for path, named in configs[:6]]
                     + [Case(("time", "--params", "7B", "--model", "llama-2-7b", "--tokens", "1T"), "--params"),
                        Case(("time", "--params", "1e300", "--tokens", "1T"), "--params")])
    data = ("data", "--params", "7B")
    found["data"] = (_options(data, {"--tokens": COUNTS, "--tokens-per-param": REALS,
                                     "--cleaning-yield": REALS + ["1.5"], "--language": NAMES})
                     + _options(("data",), {"--params": COUNTS})
                     + _options(("data", "--params", "7B", "--gpus", "8"),
                                {"--days": REALS, "--mfu": REALS, "--peak": REALS, "--gpu": NAMES})
                     + _options(("data", "--gpus", "8"), {"--gpus": INTS})
                     + _options(data, {"--days": ["10"], "--mfu": ["0.5"], "--peak": ["200"], "--gpu": ["H200"]})
                     + [Case((*data, "--tokens", "1T", "--tokens-per-param", "30"), "--tokens-per-param")])
    serve = ("serve", "llama-2-7b", "--prompt-tokens", "512", "--output-tokens", "128")
    found["serve"] = (_options(serve, {"--tp": INTS, "--batch": INTS, "--block-tokens": INTS,
                                       "--prefill-efficiency": REALS + ["1.5"], "--price": REALS,
                                       "--margin": REALS + ["1", "1.5"], "--requests-per-s": REALS, "--gpu": NAMES,
                                       "--weights": NAMES[:3], "--kv-dtype": NAMES[:3]},
                              {("--price", x) for x in ("0", "1e-300", "5e-324")}
                              | {("--margin", x) for x in ("0", "1e-300", "5e-324")})
                      + _options(("serve", "llama-2-7b", "--output-tokens", "128"), {"--prompt-tokens": INTS})
                      + _options(("serve", "llama-2-7b", "--prompt-tokens", "512"), {"--output-tokens": INTS})
                      + _options(serve, {"--tp": ["3", "5"]})   # 32 heads: tp must divide them
                      + _options((*serve, "--ttft", "0.5", "--tpot", "0.05"), {"--rate": REALS})
                      + _options((*serve, "--rate", "10", "--ttft", "0.5", "--tpot", "0.05"),
                                 {"--ttft": REALS, "--tpot": REALS, "--prefix-hit-rate": REALS + ["1"],
                                  "--chunk-tokens": INTS, "--tp": INTS + ["3", "16"]},
                                 {("--ttft", HUGE), ("--tpot", HUGE), ("--prefix-hit-rate", "0"),
                                  ("--prefix-hit-rate", "1e-300"), ("--prefix-hit-rate", "5e-324"),
                                  # a budget past any prompt: no chunking, a real setting
                                  ("--chunk-tokens", HUGE), ("--chunk-tokens", "99999999999999999999")})
                      + _options(serve, {"--ttft": ["0.2"], "--tpot": ["0.05"], "--prefix-hit-rate": ["0.5"],
                                         "--chunk-tokens": ["512"]})   # the capacity question's, without --rate
                      + [Case(("serve", path, "--prompt-tokens", "512", "--output-tokens", "8"), named)
                         for path, named in configs[:4]])
    (tmp / "a-file").write_text("x")
    (tmp / "taken" / "worksheet.md").mkdir(parents=True)
    out = ("drill", "--out", str(tmp / "drill"))
    found["drill"] = (_options(out, {"--seed": INTS, "--n": INTS + ["201"], "--topics": NAMES + ["memory,,x"],
                                     "--level": NAMES}, {("--seed", x) for x in ("0", HUGE, "99999999999999999999")})
                      + _options(("drill", "--n", "2"), {"--out": [str(tmp / "a-file"), str(tmp / "a-file" / "sub"),
                                                                   "/proc/x", "/proc/x/y", str(tmp / "taken"), "",
                                                                   "x" * 5000, "/dev/null"]}))
    return found


def _call(argv) -> tuple:
    """(exit status, stdout, stderr) of the command run in this process; status "raised" for an escape."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            status = cli.main(list(argv))
        except SystemExit as exit_:
            status = exit_.code
        except Exception as escape:  # noqa: BLE001 - what the fuzz looks for
            status = "raised"
            err.write(f"Traceback: {type(escape).__name__}: {escape}")
    return status, out.getvalue(), err.getvalue()


def _figures(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from _figures(item)
    elif isinstance(value, list):
        for item in value:
            yield from _figures(item)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield value


_NONSENSE_TEXT = re.compile(r"\b(?:nan|inf|infinity)\b|(?:^|[\s(=:$])-\d", re.IGNORECASE)


def sane(argv) -> bool:
    """The answer's figures are finite and not negative, in the table and in the JSON."""
    status, text, _ = _call(argv)
    status_json, out, _ = _call((*argv, "--json"))
    if status != 0 or status_json != 0 or _NONSENSE_TEXT.search(text):
        return False
    return all(math.isfinite(x) and x >= 0 for x in _figures(json.loads(out)))


def outcome(case: Case) -> str:
    """'named' (exit 2, the error line names the option), 'unnamed' (exit 2, it does not), 'sane' (exit 0 with a
    sane answer to a real setting), 'nonsense' (exit 0 otherwise) or 'traceback' (an escape or another status)."""
    status, _, err = _call(case.argv)
    if status == 0:
        return "sane" if case.may_run and sane(case.argv) else "nonsense"
    if status != 2 or "Traceback" in err:
        return "traceback"
    lines = err.strip().splitlines()
    named = re.search(re.escape(case.named) + r"(?![\w-])", lines[-1]) if lines else None
    return "named" if named else "unnamed"


@pytest.fixture(scope="module")
def all_cases(tmp_path_factory):
    return cases(tmp_path_factory.mktemp("fuzz"))


def test_every_subcommand_gets_a_hundred_bad_command_lines(all_cases):
    assert set(all_cases) == {"params", "memory training", "memory inference", "memory qlora", "time", "data",
                              "drill", "serve"}
    assert sum(map(len, all_cases.values())) >= 500 and min(map(len, all_cases.values())) >= 20


@pytest.mark.parametrize("command", ["params", "memory training", "memory inference", "memory qlora", "time", "data",
                                     "drill", "serve"])
def test_a_bad_command_line_is_named_or_answered_sanely(all_cases, command):
    wrong = {str(case): result for case in all_cases[command] if (result := outcome(case)) not in ("named", "sane")}
    assert wrong == {}


def test_an_error_is_one_line(all_cases):
    for case in all_cases["time"][::7] + all_cases["memory inference"][::7]:
        status, _, err = _call(case.argv)
        assert status != 2 or len(err.strip().splitlines()) == 1, (str(case), err)


def test_the_outcomes_are_told_apart(tmp_path):
    assert outcome(Case(("time", "--params", "7B", "--tokens", "1T", "--gpus", "0"), "--gpus")) == "named"
    assert outcome(Case(("time", "--params", "7B", "--tokens", "1T", "--gpus", "0"), "--mfu")) == "unnamed"
    assert outcome(Case(("time", "--params", "7B", "--tokens", "1T", "--gpus", "8"), "--gpus", True)) == "sane"
    assert outcome(Case(("time", "--params", "7B", "--tokens", "1T", "--gpus", "8"), "--gpus")) == "nonsense"
    assert not sane(("time", "--params", "7B", "--tokens", "1T", "--gpus", "0"))


@pytest.mark.parametrize("command", [["params"], ["memory"], ["serve", "--prompt-tokens", "512", "--output-tokens",
                                                                  "128"],
                                     ["layout", "--gpus", "64", "--seq-len", "4096", "--global-batch-tokens", "4194304"]])
def test_an_integer_too_long_to_read_is_one_line_naming_its_key(tmp_path, command):
    good = (FIXTURES / "llama-2-7b.json").read_text(encoding="utf-8")
    path = tmp_path / "digits.json"
    path.write_text(good.replace('"num_hidden_layers": 32', '"num_hidden_layers": ' + "9" * 10_000), encoding="utf-8")
    status, out, err = _call([command[0], str(path), *command[1:]])
    assert status == 2 and not out and len(err.strip().splitlines()) == 1, (status, err)
    assert "num_hidden_layers" in err and "10,000 digits" in err and "Exceeds the limit" not in err
