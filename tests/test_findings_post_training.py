"""The post-training finding's sample for tests/test_findings.py (one report in text, HTML and JSON, in both
languages); tests/test_post_training.py holds its figures to the published ones."""

from llmest.plans.findings import post_training as findings

SAMPLES = {"published_post_training": lambda: findings.published_post_training()}
