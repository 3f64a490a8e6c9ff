"""The command line in both languages: every result command in English and in Chinese (``llmest --lang zh`` or the
locale), the same figures in each, the same JSON, and the text the result's own display gives."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from llmest import cli, plans
from llmest.book.edition import english_prose
from llmest.core.i18n import language, speaking

COMMANDS = {
    "params": ["params", "llama-2-7b"],
    "params moe": ["params", "mixtral-8x7b"],
    "memory training": ["memory", "llama-2-7b", "--zero", "2", "--dp", "8", "--offload", "optimizer"],
    "memory no fit": ["memory", "llama-2-70b"],
    "memory inference": ["memory", "llama-2-70b", "--task", "inference"],
    "memory qlora": ["memory", "llama-2-70b", "--task", "qlora"],
    "time": ["time", "--params", "7B", "--tokens", "1T", "--gpus", "256"],
    "time attention": ["time", "--model", "llama-2-7b", "--tokens", "2T", "--gpus", "256", "--seq-len", "4096",
                       "--price", "3"],
    "data": ["data", "--params", "7B", "--language", "chinese"],
    "data cluster": ["data", "--gpus", "64", "--days", "30", "--mfu", "0.5", "--peak", "200"],
    "serve": ["serve", "llama-2-70b", "--gpu", "H100 SXM", "--tp", "4", "--prompt-tokens", "2048",
              "--output-tokens", "512", "--batch", "32", "--requests-per-s", "5"],
    "serve capacity": ["serve", "llama-2-70b", "--gpu", "H100 SXM", "--rate", "1000", "--prompt-tokens", "1024",
                       "--output-tokens", "256", "--ttft", "0.2", "--tpot", "0.05", "--disaggregated"],
    "layout": ["layout", "llama-2-7b", "--gpus", "64", "--seq-len", "4096", "--global-batch-tokens", "4194304",
               "--top", "3", "--tp", "2", "--pp", "1", "--cp", "1", "--dp", "32"],
}
# Names the Chinese keeps: the models' and GPUs' own, and the option names a hint tells the reader to type.
NAMES = re.compile(r"llama-2-\d+b|mixtral-8x7b|A100 80GB|H100 SXM|q_proj|k_proj|v_proj|o_proj|gate_proj|up_proj|"
                   r"down_proj|--\w+")


def run(capsys, *argv) -> str:
    assert cli.main(list(argv)) == 0
    return capsys.readouterr().out


def _figures(text: str) -> list:
    """The numbers a text states, in order of first appearance, each once."""
    return list(dict.fromkeys(re.findall(r"\d+(?:,\d{3})*(?:\.\d+)?(?:e\d+)?", text)))


@pytest.mark.parametrize("name", COMMANDS)
def test_each_command_answers_in_chinese_with_the_english_figures(capsys, name):
    english = run(capsys, *COMMANDS[name])
    chinese = run(capsys, "--lang", "zh", *COMMANDS[name])
    assert english_prose(NAMES.sub("", chinese)) == []
    assert re.search(r"[\u4e00-\u9fff]", chinese)
    missing = [figure for figure in _figures(english) if figure not in chinese]
    assert missing == []
    assert language() == "en"   # the command's language does not outlive it


@pytest.mark.parametrize("name", COMMANDS)
def test_the_json_is_the_same_in_either_language(capsys, name):
    english = json.loads(run(capsys, *COMMANDS[name], "--json"))
    assert json.loads(run(capsys, "--lang", "zh", *COMMANDS[name], "--json")) == english


def test_the_command_prints_the_results_own_display(capsys):
    """What the command prints is the plan's result shown by itself, in each language: no second formatting."""
    plan = plans.plan_memory("inference", "llama-2-70b")
    request = plans.estimate_request("llama-2-70b", "H100 SXM", prompt_tokens=2048, output_tokens=512, batch=32, tp=4)
    estimate = plans.estimate_time(1e12, n_params=7e9, gpus=256)
    for lang in ("en", "zh"):
        with speaking(lang):  # a result shows itself in the language current when it is shown
            shown = [str(plan), str(request), str(estimate)]
        assert run(capsys, "--lang", lang, *COMMANDS["memory inference"]) == f"{shown[0]}\n"
        assert run(capsys, "--lang", lang, "serve", "llama-2-70b", "--gpu", "H100 SXM", "--tp", "4",
                   "--prompt-tokens", "2048", "--output-tokens", "512", "--batch", "32") == f"{shown[1]}\n"
        assert run(capsys, "--lang", lang, *COMMANDS["time"]) == f"{shown[2]}\n"


@pytest.mark.parametrize("environment, expected", [
    ({"LANG": "zh_CN.UTF-8"}, "zh"), ({"LANGUAGE": "zh_CN:en", "LANG": "C.UTF-8"}, "zh"),
    ({"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"), ({"LC_MESSAGES": "zh_TW.UTF-8"}, "zh"),
    ({"LANG": "de_DE.UTF-8"}, "en"), ({"LANGUAGE": "fr:zh_CN"}, "zh"), ({}, "en")])
def test_the_locale_chooses_the_language_when_no_option_does(environment, expected):
    assert cli.locale_language(environment) == expected


def test_a_chinese_locale_and_the_option_in_a_new_process(tmp_path):
    argv = [sys.executable, "-m", "llmest", "time", "--params", "7B", "--tokens", "1T", "--gpus", "256"]
    env = {"PATH": "/usr/bin:/bin", "LANG": "zh_CN.UTF-8", "HOME": str(tmp_path)}
    chinese = subprocess.run(argv, capture_output=True, text=True, env=env, check=True).stdout
    assert "卡时" in chinese and "93,483" in chinese
    english = subprocess.run([*argv[:3], "--lang", "en", *argv[3:]], capture_output=True, text=True, env=env,
                             check=True).stdout
    assert "GPU-hours" in english and "93,483" in english


def test_the_price_says_where_it_comes_from(capsys):
    listed = run(capsys, "serve", "llama-2-7b", "--gpu", "H100 SXM", "--prompt-tokens", "512", "--output-tokens",
                 "256")
    assert "at $4.00 per GPU-hour, the listed price of the H100 SXM: the middle of the material's ~$3-5" in listed
    given = run(capsys, "time", "--params", "7B", "--tokens", "1T", "--price", "3")
    assert "$3.00 per GPU-hour (given)" in given
    assert "每卡时 $4.00（H100 SXM 的标价，资料 000 中约每小时 $3-5 的中间值）" in run(capsys, "--lang", "zh", "serve", "llama-2-7b", "--gpu", "H100 SXM",
                                                 "--prompt-tokens", "512", "--output-tokens", "256")


@pytest.mark.parametrize("argv, words", [
    (["memory", "llama-3-8b", "--task", "inference", "--zero", "2"], ("用不到这个选项", "--task training 或")),
    (["memory", "llama-3-8b", "--dp", "100000", "--tp", "200"], ("张 GPU，必须", "没有集群接近一千万张卡")),
])
def test_an_option_refused_is_refused_in_chinese(capsys, argv, words):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--lang", "zh", *argv])
    error = capsys.readouterr().err
    assert exit_.value.code == 2 and all(word in error for word in words), error
