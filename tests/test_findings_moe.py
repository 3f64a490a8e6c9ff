"""The MoE-training finding's sample for tests/test_findings.py (one report in text, HTML and JSON, in both
languages); tests/test_moe_training.py holds its figures to DeepSeek-V3's published ones."""

from llmest.plans.findings import moe as findings

SAMPLES = {"deepseek_v3_cost": [lambda: findings.deepseek_v3_cost(), lambda: findings.deepseek_v3_cost(1.25)]}
