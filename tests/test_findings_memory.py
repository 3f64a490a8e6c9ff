"""Chapter 2's findings (llmest.plans.findings.memory): the English as the chapter shows it, with its figures, and the
Chinese. ``SAMPLES`` feeds tests/test_findings.py."""

from llmest.core.i18n import speaking
from llmest.plans.findings import memory as findings

SAMPLES = {
    "state_gpus": lambda: findings.state_gpus(70e9, 16, "A100 80GB"),
}


def test_the_states_alone_and_with_a_margin():
    found = findings.state_gpus(70e9, 16, "A100 80GB")
    assert (found["bare"], found["kept"]) == (14, 17)  # 1.12 TB over 80 GB; over 64 GB with 20% kept free
    assert str(found) == "the states alone, nothing kept free: 14 GPUs; with 20% free: 17 GPUs"
    with speaking("zh"):
        assert str(found) == "只放训练状态、不留余量：14 张卡；留 20% 余量：17 张卡"
