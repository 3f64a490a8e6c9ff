"""Drills: every template gives a solvable problem whose answer is the chapter function's; seeded sets; answer
entry; worksheets; flashcards; the timed session and the flashcard deck."""

import math
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llmest as le
from llmest import compute as c
from llmest import data as dt
from llmest import drills, flashcards
from llmest import hardware
from llmest import memory as mem
from llmest import model as m
from llmest import plans
from llmest.learn.drills import LEVELS, TEMPLATES, TOPICS

# Each template's answer recomputed from its inputs with the chapter functions, independently of the template.
EXPECTED = {
    "params-from-shape": lambda i: m.rule_params(i["hidden"], i["layers"], i["vocab"]),
    "hidden-from-params": lambda i: m.rule_hidden_size(i["n"], i["layers"], i["vocab"]),
    "moe-active": lambda i: i["shared"] + i["layers"] * i["top_k"] * m.ffn_params(i["hidden"], i["ffn"], gated=True),
    "lora-params": lambda i: i["layers"] * i["matrices"] * mem.lora_matrix_params(i["rank"], i["hidden"],
                                                                                   i["hidden"]),
    "weight-memory": lambda i: mem.weight_bytes(i["n"], i["bytes_per_param"]),
    "training-states": lambda i: i["n"] * mem.state_bytes_per_param(i["convention"], "adamw").total,
    "zero-per-gpu": lambda i: sum(mem.sharded_state_bytes(i["n"], mem.state_bytes_per_param(), i["zero"],
                                                          i["dp"]).values()),
    "gpus-for-states": lambda i: plans.state_gpus(i["n"], 16, i["gpu"], i["margin"]),
    "kv-cache": lambda i: mem.kv_cache_bytes(i["layers"], i["kv_heads"], i["head_dim"], i["seq_len"], i["batch"]),
    "hybrid-cache": lambda i: 2 * i["attention_layers"] * i["kv_heads"] * i["head_dim"] * 2 * i["seq_len"] + i["state"],
    "sparse-attention": lambda i: i["layers"] * (2 * i["heads"] * (i["qk"] + i["v"]) * min(i["seq_len"], i["top_k"])
                                                 + 2 * i["index_heads"] * (i["index_head_dim"] + 1) * i["seq_len"]),
    "mtp-training": lambda i: 6 * (i["n"] + i["extra"]) * i["tokens"],
    "qlora-memory": lambda i: (mem.weight_bytes(i["n"], 0.5) + 16 * i["adapters"] + i["activations"]),
    "activations-rule": lambda i: mem.activation_bytes_rule(i["layers"], i["batch"], i["seq"], i["hidden"], 2,
                                                            i["factor"]),
    "training-flops": lambda i: c.training_flops(i["n"], i["tokens"]),
    "gpu-hours": lambda i: c.gpu_hours(c.training_flops(i["n"], i["tokens"]), i["peak"], i["mfu"]),
    "training-days": lambda i: c.training_days(c.training_flops(i["n"], i["tokens"]), i["gpus"], i["peak"],
                                               i["mfu"]),
    "training-cost": lambda i: c.cost(c.gpu_hours(c.training_flops(i["n"], i["tokens"]), i["peak"], i["mfu"]),
                                      i["price"]),
    "gpus-for-deadline": lambda i: c.gpus_for_deadline(c.training_flops(i["n"], i["tokens"]), i["days"], i["peak"],
                                                       i["mfu"]),
    "reverse-budget": lambda i: c.affordable_params(c.compute_budget(i["gpus"], i["days"], i["peak"], i["mfu"]),
                                                    i["tokens"]),
    "implied-mfu": lambda i: c.implied_mfu(i["n"], i["tokens"], i["hours"], i["peak"]),
    "checkpoint-storage": lambda i: c.checkpoint_storage_bytes(i["n"], i["run_hours"], i["interval"], i["keep"]),
    "chinchilla-tokens": lambda i: dt.chinchilla_tokens(i["n"], i["tokens_per_param"]),
    "chinchilla-for-budget": lambda i: plans.chinchilla_for_budget(i["gpus"], i["days"], i["peak"], i["mfu"])[0],
    "corpus-size": lambda i: (dt.cleaned_bytes(i["tokens"], i["rate"]) if i["cleaning_yield"] is None
                              else dt.raw_bytes(dt.cleaned_bytes(i["tokens"], i["rate"]), i["cleaning_yield"])),
    "epochs": lambda i: dt.epochs(dt.chinchilla_tokens(i["n"]), i["unique"]),
    "inference-flops": lambda i: c.forward_flops_per_token(i["n"]) * i["tokens"],
    "decode-speed": lambda i: i["batch"] / c.decode_step_seconds(
        mem.weight_bytes(i["n"], i["bytes_per_param"]), i["kv"], i["n"], i["batch"], i["bandwidth"], i["peak"]),
    "serving-gpus": lambda i: c.gpus_for_request_rate(i["rps"], i["tokens"], i["per_replica"],
                                                      i["gpus_per_replica"]),
    "serving-cost": lambda i: c.cost_per_million_tokens(i["price"], i["gpus"], i["tokens_per_s"]),
    # A token's copies that leave its node (k·(ep − g)/ep, or M·(1 − g/ep) with node-limited routing), each sent and
    # brought back forward and backward: FP8 dispatch is 1 byte and an FP32 scale per 128 (DeepSeek-V3 §3.3.4).
    "moe-all-to-all": lambda i: 2 * i["hidden"] * ({"bf16": 2, "fp8": 1 + 4 / 128}[i["dispatch"]] + 2) * (
        i["top_k"] * (i["ep"] - i["gpus_per_node"]) / i["ep"] if i["nodes_per_token"] is None
        else i["nodes_per_token"] * (1 - i["gpus_per_node"] / i["ep"])),
    "fp8-memory": lambda i: i["n"] * RECIPE_BYTES[i["precision"]] / (i["dp"] or 1),
    # The policy's 16 bytes and the reference's 2 a parameter over dp; GRPO's engine: 2 bytes a parameter, whole,
    # and K and V of every layer, 2 bytes a value, for each sequence's tokens.
    "post-training-memory": lambda i: 18 * i["n"] / i["dp"] + (i["task"] == "grpo") * (
        2 * i["n"] + 2 * i["layers"] * i["kv_heads"] * i["head_dim"] * 2 * i["sequences"] * i["seq_len"]),
    # The answers' tokens at the engines' rate, then (asked "both") 8N (the recomputed update) + 2N + 2N (two
    # forwards) a token of every prompt and answer, at the MFU of the GPUs' peak.
    "rl-rollout": lambda i: (i["prompts"] * i["group"] * i["output_tokens"] / i["tokens_per_s"]
                             + (i["asked"] == "both") * 12 * i["n"] * i["prompts"] * i["group"]
                             * (i["prompt_tokens"] + i["output_tokens"]) / (i["gpus"] * i["peak"] * i["mfu"])),
    # Little's law: λ requests a second, each in the server for its O tokens at TPOT t, are λ·O·t at once; replicas
    # of b of them, tp GPUs each, rounded up.
    "replicas-for-load": lambda i: math.ceil(i["rps"] * i["output_tokens"] * i["tpot_s"] / i["batch"]) * i["tp"],
    # TPOT = a + c·b within the target, and no more sequences than the memory left holds: (T − a)/c and room/kv,
    # rounded down (the roofline's a and c: the weights and one sequence's cache over the bandwidth).
    "batch-at-tpot": lambda i: (min(math.floor(round((i["tpot_s"] - i["base_s"]) / i["per_sequence_s"], 6)),
                                    math.floor(round(i["room_bytes"] / i["kv_bytes"], 6))) if "base_s" in i else
                                min(math.floor(round((i["tpot_s"] - i["weight_bytes"] / i["bandwidth"])
                                                     * i["bandwidth"] / i["kv_bytes"], 6)),
                                    math.floor(round((i["usable"] - i["weight_bytes"]) / i["kv_bytes"], 6)))),
    # Leviathan et al. 2023: 1 + α + ... + α^k tokens a step; over the step's cost in plain steps (verification and
    # k draft steps).
    "speculative-speedup": lambda i: sum(i["acceptance"] ** j for j in range(i["draft_tokens"] + 1)) / (
        1 if i["asked"] == "tokens" else i["verify_cost"] + i["draft_tokens"] * i["draft_cost"]),
    # An expert no token of b picks: (1 − k/E)^b; the bytes: the rest of the weights and each picked expert a layer.
    "moe-experts-read": lambda i: (lambda picked: picked if i["asked"] == "experts" else
                                   i["other_bytes"] + i["moe_layers"] * picked * i["expert_bytes"])(
        i["experts"] * (1 - (1 - i["top_k"] / i["experts"]) ** i["tokens"])),
}
# Bytes a parameter of each precision recipe's states, from its formats: the working weights (and the low-precision
# copies kept for the matmuls), the FP32 master copy, the gradients, Adam's two moments. MXFP8: 1 byte and an
# 8-bit scale per 32; NVFP4: half a byte and an 8-bit scale per 16 (formulas/precision.py's sources).
RECIPE_BYTES = {"bf16": 2 + 4 + 2 + 2 * 4, "fp8-deepseek": 2 + 4 + 4 + 2 * 2, "fp8-te": 1 + 1 + 4 + 2 + 2 * 4,
                "mxfp8": 2 + 2 * (1 + 1 / 32) + 4 + 4 + 2 * 4, "nvfp4": 2 + 2 * (0.5 + 1 / 16) + 4 + 4 + 2 * 4}


def test_at_least_twenty_templates_cover_every_topic():
    assert len(TEMPLATES) >= 20
    assert {t.topic for t in TEMPLATES.values()} == set(TOPICS)
    assert set(EXPECTED) == set(TEMPLATES), "every template has an independent recomputation here"


@settings(max_examples=300, deadline=None)
@given(key=st.sampled_from(sorted(TEMPLATES)), seed=st.integers(0, 10**9), level=st.sampled_from(LEVELS))
def test_every_template_gives_a_solvable_problem_with_the_chapter_functions_answer(key, seed, level):
    p = drills.generate(key, seed, level)
    assert (p.template, p.level, p.topic) == (key, level, TEMPLATES[key].topic)
    assert math.isfinite(p.answer) and p.answer > 0
    assert p.answer == pytest.approx(EXPECTED[key](p.inputs), rel=1e-12)
    assert p.question.endswith("?") or p.question.endswith("(GB)") or p.question.endswith("size)")
    assert "{" not in p.question and "None" not in p.question
    assert p.steps and p.hint and p.solution().endswith(f"Answer: {p.answer_text}")
    # Scored as an estimate: within the tolerance (25%, 10% for an MFU) correct, within 2x close, else wrong;
    # for the least number of GPUs that works, fewer is wrong.
    inside = 1 + 0.8 * p.tolerance
    up, down = _entries(p)
    assert p.check(p.answer).correct and p.check(down(p.answer * inside)).correct
    assert p.check(up(p.answer * 1.6)).grade == "close" and p.check(up(p.answer * 3)).grade == "wrong"
    if p.minimum:
        assert down(p.answer / inside) < 1 or p.check(down(p.answer / inside)).grade == "wrong"
    else:
        assert p.check(p.answer / inside).correct and p.check(p.answer / 1.9).grade == "close"
    assert drills.generate(key, seed, level) == p, "the same seed gives the same problem"


def _entries(p):
    """How a person would round an entry near the answer: a number of GPUs is whole (the grader refuses 1.2 GPUs)."""
    if p.unit == "GPUs":
        return math.ceil, math.floor
    return (lambda x: x), (lambda x: x)


def test_problems_stay_realistic():
    for level in LEVELS:
        for seed in range(200):
            i = drills.generate("decode-speed", seed, level).inputs
            gpu = next(g for g in hardware.CATALOG.values() if g.bandwidth_bytes_per_s == i["bandwidth"])
            assert mem.weight_bytes(i["n"], i["bytes_per_param"]) + i["kv"] <= plans.usable_bytes(gpu)
            run = drills.generate("training-days", seed, level)
            assert 1 <= run.answer <= 365
            gpu = next(g for g in hardware.CATALOG.values() if g.bf16_flops_per_s == run.inputs["peak"])
            assert 16 * run.inputs["n"] / run.inputs["gpus"] <= plans.usable_bytes(gpu), "the states fit the cluster"
            assert drills.generate("zero-per-gpu", seed, level).answer <= 192e9, "some GPU holds it"
            assert drills.generate("implied-mfu", seed, level).answer < 0.505  # 50% at most, before rounding the hours


@pytest.mark.parametrize("key", ["gpus-for-states", "gpus-for-deadline", "serving-gpus"])
def test_fewer_gpus_than_the_least_that_works_are_wrong(key):
    for seed in range(20):
        p = drills.generate(key, seed, "medium")
        assert p.check(p.answer).correct and p.check(int(p.answer * 1.2)).correct
        if p.answer > 1:
            assert p.check(p.answer - 1).grade == "wrong", p.question


def test_an_mfu_is_graded_within_a_few_points():
    p = next(q for s in range(100) if 0.39 < (q := drills.generate("implied-mfu", s, "easy")).answer < 0.41)
    assert p.check("42%").correct and p.check("40 percent").correct
    assert not p.check("30%").correct and not p.check("50%").correct


def test_levels_differ():
    questions = {level: {drills.generate("training-days", s, level).question for s in range(40)} for level in LEVELS}
    assert all("A100 80GB" in q for q in questions["easy"])
    assert any("B200" in q or "H200" in q for q in questions["hard"])
    assert not questions["easy"] & questions["hard"]


@pytest.mark.parametrize("entry, grade", [
    ("140B", "correct"), ("1.4e11", "correct"), ("140 billion", "correct"), ("1400亿", "correct"),
    ("0.15 T", "correct"), ("90B", "close"), ("1.2 T", "wrong"), ("", "empty"), (None, "empty"),
    ("abc", "invalid"), ("7 apples", "invalid"),
])
def test_answer_entry_parses_or_gets_a_message(entry, grade):
    p = next(q for s in range(100) if (q := drills.generate("chinchilla-tokens", s, "easy")).inputs["n"] == 7e9)
    assert p.answer == 140e9
    verdict = p.check(entry)
    assert verdict.grade == grade, verdict.message
    if grade == "invalid":
        assert "answer ==" in verdict.message and "Traceback" not in verdict.message


@pytest.mark.parametrize("key, entry", [
    ("training-cost", "${}"), ("serving-cost", "{} USD"), ("training-days", "{} days"), ("gpu-hours", "{} GPU-hours"),
    ("gpus-for-states", "{} GPUs"), ("decode-speed", "{} tokens/s"), ("training-flops", "{} FLOPs"),
])
def test_entries_may_carry_their_unit(key, entry):
    p = drills.generate(key, 5, "medium")
    text = entry.format(f"{p.answer:.6g}")
    assert p.check(text).correct, (text, p.check(text).message)


def test_a_drill_set_is_fixed_by_its_seed_and_honours_topics_and_level():
    a, b = drills.drill_set(11, 12, "memory,compute", "mixed"), drills.drill_set(11, 12, ["memory", "compute"], "mixed")
    assert [p.question for p in a] == [p.question for p in b]
    assert [p.question for p in a] != [p.question for p in drills.drill_set(12, 12, "memory,compute", "mixed")]
    assert {p.topic for p in a} <= {"memory", "compute"}
    assert {p.level for p in a} == set(LEVELS)
    keys = [p.template for p in drills.drill_set(3, len(TEMPLATES))]
    assert sorted(keys) == sorted(TEMPLATES), "no template comes twice before every one has come"


def test_adding_a_template_leaves_the_problems_a_seed_draws_for_the_others():
    def two_rounds(level, topics=None):
        chosen = drills.chosen_topics(topics)
        return drills.drill_set(7, 2 * sum(t.topic in chosen for t in TEMPLATES.values()), topics, level)

    before = {level: two_rounds(level) for level in ("mixed", "hard")}
    memory_before = [p for p in two_rounds("mixed", "memory,compute") if p.topic == "memory"]

    @drills.template("zz-extra", "memory")
    def _extra(rng, level):
        return drills.Problem("zz-extra", "memory", level, "How many bytes?", {}, 1e9, "bytes", ("1 GB",), "")

    try:
        for level, problems in before.items():
            after = two_rounds(level)
            assert [p.template for p in after].count("zz-extra") == 2
            assert [p for p in after if p.template != "zz-extra"] == problems
        memory_after = [p for p in two_rounds("mixed", "memory,compute") if p.topic == "memory"]
        assert [p for p in memory_after if p.template != "zz-extra"] == memory_before
    finally:
        del TEMPLATES["zz-extra"]
    assert two_rounds("mixed") == before["mixed"]


def test_a_mixed_set_gives_each_template_the_next_level_in_its_next_round():
    problems = drills.drill_set(5, 2 * len(TEMPLATES), level="mixed")
    first, second = problems[:len(TEMPLATES)], problems[len(TEMPLATES):]
    assert sorted(p.template for p in first) == sorted(p.template for p in second) == sorted(TEMPLATES)
    level_of = {p.template: p.level for p in first}
    for p in second:
        assert LEVELS.index(p.level) == (LEVELS.index(level_of[p.template]) + 1) % 3
    assert {p.level for p in first} == set(LEVELS)


@pytest.mark.parametrize("kwargs, param", [
    (dict(seed=1, topics="memry"), "topics"), (dict(seed=1, level="expert"), "level"), (dict(seed=-1), "seed"),
    (dict(seed=1, n=0), "n"), (dict(seed=1, topics=""), "topics"),
])
def test_bad_drill_options_name_the_parameter(kwargs, param):
    with pytest.raises(le.InputError) as err:
        drills.drill_set(**kwargs)
    assert err.value.param == param


def test_the_worksheet_command_writes_both_files_and_a_key_that_matches_the_generator(tmp_path):
    out = tmp_path / "ws"
    result = subprocess.run([sys.executable, "-m", "llmest", "drill", "--seed", "7", "--n", "8", "--topics",
                             "memory,data", "--level", "hard", "--out", str(out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    names = {"worksheet.md", "worksheet.html", "key.md", "key.html"}
    assert {p.name for p in out.iterdir()} == names
    problems = drills.drill_set(7, 8, "memory,data", "hard")
    key_md, sheet_md = (out / "key.md").read_text(encoding="utf-8"), (out / "worksheet.md").read_text(encoding="utf-8")
    key_html, sheet_html = (out / "key.html").read_text(encoding="utf-8"), (out / "worksheet.html").read_text(encoding="utf-8")
    answers = [part.answer_text for p in problems for part in p.graded]  # a chained problem: one per step
    assert any(p.parts for p in problems)
    assert re.findall(r"\*\*Answer(?: \([abc]\))?: (.+)\*\*", key_md) == answers
    assert re.findall(r"<strong>Answer(?: \([abc]\))?: (.+?)</strong>", key_html) == answers
    for p in problems:
        assert p.question in sheet_md and p.question.replace('"', "&quot;").replace("'", "&#x27;") in sheet_html
        assert all(step in key_md for part in p.graded for step in part.steps)
    assert "**Answer" not in sheet_md and "<strong>Answer" not in sheet_html
    assert sheet_html.startswith("<!DOCTYPE html>") and sheet_html.rstrip().endswith("</html>")


def test_the_worksheet_command_rejects_a_bad_option_with_its_name_and_status_2(tmp_path):
    result = subprocess.run([sys.executable, "-m", "llmest", "drill", "--topics", "memory,finance", "--out",
                             str(tmp_path)], capture_output=True, text=True)
    assert result.returncode == 2
    assert "topics" in result.stderr and "finance" in result.stderr and "Traceback" not in result.stderr


def test_flashcards_are_computed_by_the_library():
    backs = {card.front: card.back for card in flashcards.cards()}
    assert backs["Training bytes per parameter, mixed-precision AdamW"].startswith("16:")
    assert backs["Compute-optimal tokens per parameter (Chinchilla's rule)"] == "20"
    assert backs["A100 GPU-hours to train a 7B on 1T tokens at 40% MFU"] == "93,483"
    # Llama-2-7B holds 2 x 32 layers x 4,096 values a token in BF16: 512 KiB.
    assert backs["KV cache per token of llama-2-7b in BF16 (32 layers, 32 KV heads × 128)"].startswith("512 KiB")
    assert backs["H100 SXM: dense BF16 peak, memory and its bandwidth"].startswith("989.4 TFLOPS, 79.6 GiB = 85.5 GB")
    assert {card.topic for card in flashcards.cards("data")} == {"data"}
    assert len(flashcards.cards()) >= 25


def test_the_timed_session_grades_times_out_and_reviews_the_misses():
    from llmest.surfaces.widgets import TimedSession

    session = TimedSession(n=3, seed=4, level="easy", seconds_per_question=60)
    now = [0.0]
    session._clock, session._started = (lambda: now[0]), 0.0
    first = session.current
    session.next.click()  # not graded yet: stays
    assert session.index == 0
    assert session.answer("abc").grade == "invalid" and session.index == 0 and not session.results
    assert session.answer(first.answer * 1.1).correct
    session.next.click()
    second = session.current
    session._started = now[0]
    now[0] += 61
    session._tick()   # the time is up: the empty entry is graded
    assert session.results[-1][1].grade == "empty" and session.results[-1][3] is True
    session.next.click()
    session.answer(session.current.answer * 10)
    session.next.click()
    assert session.score() == {"correct": 1, "close": 0, "wrong": 1, "empty": 1, "invalid": 0}
    assert "Score: 1 correct, 0 close, 2 missed, of 3" in session.header.value
    assert "<br>".join(second.solution().splitlines()).split("<br>")[0] in session.review.value
    assert first.question not in session.review.value, "correct answers are not reviewed"


def test_a_bad_time_limit_is_refused_with_its_name():
    from llmest.surfaces.widgets import TimedSession

    with pytest.raises(le.InputError) as err:
        TimedSession(seconds_per_question=0)
    assert err.value.param == "seconds_per_question"


def test_the_flashcard_deck_counts_and_goes_through_the_misses_again():
    from llmest.surfaces.widgets import FlashcardDeck

    deck = FlashcardDeck(topics="memory", seed=1)
    total = len(deck.deck)
    assert deck.knew.disabled and not deck.back.value
    deck.reveal.click()
    assert deck.back.value and not deck.knew.disabled
    for i in range(total):
        deck.grade(i % 3 != 0)
    missed = [card for card, known in deck.results if not known]
    assert f"you knew {total - len(missed)} of {total}" in deck.front.value
    deck.grade(True)  # the deck is done: nothing happens
    assert len(deck.results) == total
    deck.again.click()
    assert deck.deck == missed and deck.index == 0


# Every template's hard problem chains two or three graded steps.
CHAINED = sorted(TEMPLATES)


@pytest.mark.parametrize("key", CHAINED)
def test_every_hard_drill_is_chained_and_every_easy_one_a_single_step(key):
    for seed in range(10):
        assert 2 <= len(drills.generate(key, seed, "hard").parts) <= 3
        assert not drills.generate(key, seed, "easy").parts


@settings(max_examples=200, deadline=None)
@given(key=st.sampled_from(CHAINED), seed=st.integers(0, 10**9), wrong=st.integers(0, 2))
def test_a_hard_drill_chains_steps_graded_one_by_one(key, seed, wrong):
    p = drills.generate(key, seed, "hard")
    assert 2 <= len(p.parts) <= 3 and p.answer == p.parts[-1].answer and p.unit == p.parts[-1].unit
    assert all(f"({letter})" in p.question for letter in "abc"[:len(p.parts)])
    exercises = p.part_exercises
    assert [e.check(part.answer).correct for e, part in zip(exercises, p.parts)] == [True] * len(p.parts)
    k = wrong % len(p.parts)
    entry = (lambda x: math.ceil(x)) if p.parts[k].unit == "GPUs" else (lambda x: x)
    grades = [p.check_part(j, entry(part.answer * (3 if j == k else 1))).grade for j, part in enumerate(p.parts)]
    assert grades == ["wrong" if j == k else "correct" for j in range(len(p.parts))], "only the wrong step fails"
    for part in p.parts:  # each worked step names the chapter's formula and links to its section
        assert part.steps and all(re.search(r"\w+(\(.*\))? = ", step) and "chapter " in step and ".ipynb#cell-id="
                                  in step for step in part.steps)


def test_the_steps_of_a_chained_drill_are_the_chapter_functions():
    p = drills.generate("corpus-size", 4, "hard")
    tokens, cleaned, raw = (part.answer for part in p.parts)
    assert tokens == dt.chinchilla_tokens(p.inputs["n"])
    assert p.inputs["rate"] in dt.WORKING_TOKENS_PER_GB.values()
    assert cleaned == dt.cleaned_bytes(tokens, p.inputs["rate"])
    assert raw == dt.raw_bytes(cleaned, p.inputs["cleaning_yield"])
    budget = drills.generate("chinchilla-for-budget", 4, "hard")
    i = budget.inputs
    assert budget.parts[0].answer == pytest.approx(c.compute_budget(i["gpus"], i["days"], i["peak"], i["mfu"]))
    assert budget.parts[1].answer == pytest.approx(dt.chinchilla_params_for_flops(budget.parts[0].answer))


def test_a_chained_drill_has_an_answer_line_and_a_key_entry_per_step():
    from llmest import worksheets

    p = drills.generate("corpus-size", 2, "hard")
    sheet, key = worksheets.worksheet_markdown([p], 2), worksheets.worksheet_markdown([p], 2, key=True)
    assert [f"Answer ({x}): ____" in sheet for x in "abc"] == [True] * 3
    assert all(f"**Answer ({x}): {part.answer_text}**" in key for x, part in zip("abc", p.parts))
    assert all(f"Answer ({x}):" in worksheets.worksheet_html([p], 2) for x in "abc")


def test_the_timed_session_asks_and_grades_a_chained_problem_step_by_step():
    from llmest.surfaces.widgets import TimedSession

    session = TimedSession(n=2, seed=3, level="hard", seconds_per_question=60)
    assert all(p.parts for p in session.problems)
    assert len(session.items) == sum(len(p.parts) for p in session.problems) > len(session.problems)
    session.start()
    first, _ = session.items[0]
    assert "step (a)" in session.header.value and first.parts[0].question in session.question.value
    # the right answer to step (a) is Correct there, though it is not the problem's final answer
    assert session.answer(first.parts[0].answer_text).grade == "correct"
    assert first.check(first.parts[0].answer_text).grade != "correct"
    session._advance()
    assert "step (b)" in session.header.value
    assert session.answer(first.parts[1].answer_text).grade == "correct"
    assert [k for *_, k in session.results] == [0, 1]


@pytest.mark.parametrize("key", ["gpus-for-states", "gpus-for-deadline", "serving-gpus"])
def test_a_drill_that_asks_for_gpus_needs_more_than_one(key):
    for level in LEVELS:
        for seed in range(150):
            problem = drills.generate(key, seed, level)
            assert problem.unit != "GPUs" or problem.answer >= 2, (level, seed, problem.question)


def test_a_step_is_asked_in_the_unit_of_what_it_asks():
    """Bytes a parameter are bytes/param ("18 bytes" is read), and a count of bytes takes "bytes" after it."""
    states = drills.generate("training-states", 3, "hard")
    assert states.parts[0].unit == "bytes/param"
    assert [states.check_part(0, entry).correct for entry in ("18", "18 bytes", "18 字节")] == [True] * 3
    cache = drills.generate("kv-cache", 3, "hard")
    per_token = f"{cache.parts[0].answer:,.0f}"
    assert [cache.check_part(0, f"{per_token}{unit}").correct for unit in ("", " bytes", " 字节")] == [True] * 3


def _cited_cells():
    """Every section a drill's worked step cites: (notebook, cell id) -> the cell's text, from the solved chapters."""
    import nbformat
    from pathlib import Path

    from llmest.learn.drills import compute, data, memory, parameters, serving, serving_2025, training_2025

    root = Path(__file__).resolve().parent.parent / "solutions"
    cited = {}
    for module in (compute, data, memory, parameters, serving, training_2025, serving_2025):
        for value in vars(module).values():
            found = re.search(r"\((\w+\.ipynb)#cell-id=([\w-]+)\)$", value) if isinstance(value, str) else None
            if found:
                cells = {cell.get("id"): cell.source for cell in nbformat.read(root / found[1], as_version=4).cells}
                cited[value] = cells.get(found[2])
    return cited


def test_every_cited_section_is_a_cell_of_its_chapter():
    cited = _cited_cells()
    assert len(cited) >= 10 and all(text is not None for text in cited.values()), cited


def test_the_kv_cache_drill_cites_where_the_kv_cache_is_taught():
    cells = _cited_cells()
    for seed in range(5):
        for part in drills.generate("kv-cache", seed, "hard").parts:
            cite = re.search(r"chapter .*\)$", part.steps[-1]).group()
            assert "The KV cache" in cells[cite] and "keys and values" in cells[cite], cells[cite][:200]


def test_a_finished_timed_session_asks_nothing():
    """Once every question is answered, current and current_part are None (they raised IndexError)."""
    from llmest.surfaces.widgets import TimedSession

    session = TimedSession(n=1, seed=4, level="easy", seconds_per_question=60)
    session.start()
    assert session.current is not None and not session.done
    for problem, k in list(session.items):
        part = problem.graded[k]
        assert session.answer(part.answer_text).grade == "correct"
        session.next.click()
    assert session.done and session.current is None and session.current_part is None
