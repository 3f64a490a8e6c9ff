"""The accelerator catalog: every row found by its name in any spelling, memory as the device exposes it, dense
peaks under the sparse figures the notes quote, the export variants, and the fit checks that use the exposed bytes."""

import math
import re

import pytest

from llmest import InputError, hardware, plans

NEW_ROWS = {  # a spelling a reader might type: the row it finds
    "h800": "H800", "H800": "H800", "A800-80GB": "A800 80GB", "a800 80gb": "A800 80GB", "H20": "H20",
    "h20": "H20", "A100 40GB": "A100 40GB", "a100-40gb": "A100 40GB", "L4": "L4", "l4": "L4",
    "TPU v4": "TPU v4", "tpu-v4": "TPU v4", "TPU v5e": "TPU v5e", "tpu-v5e": "TPU v5e", "TPU v5p": "TPU v5p",
    "tpuv5p": "TPU v5p",
}


@pytest.mark.parametrize("typed, name", NEW_ROWS.items())
def test_every_new_row_is_found_by_its_name_in_any_case_and_spacing(typed, name):
    assert hardware.gpu(typed).name == name


def test_no_ascend_row_and_an_unknown_name_is_refused():
    assert not [name for name in hardware.CATALOG if "ascend" in name.lower() or "910" in name]
    with pytest.raises(InputError) as err:
        hardware.gpu("Ascend 910B")
    assert err.value.param == "gpu"


# nvidia-smi's totals in MiB (2**20 bytes), as read in published output (hardware.py says where)
EXPOSED_MIB = {"A100 80GB": 81_920, "A800 80GB": 81_920, "A100 40GB": 40_960, "H100 SXM": 81_559,
               "H100 PCIe": 81_559, "H800": 81_559, "H20": 97_871, "H200": 143_771, "B200": 183_359,
               "V100": 32_768, "RTX A6000": 49_140, "RTX 4090": 24_564, "L40S": 46_068, "L4": 23_034}


def test_memory_is_what_the_device_exposes_and_the_label_keeps_the_vendors_figure():
    a100 = hardware.gpu("A100 80GB")
    assert a100.memory_bytes == 80 * 2**30 == 85_899_345_920
    assert a100.label_bytes == 80e9 and a100.memory_text == "80.0 GiB = 85.9 GB"
    for name, mib in EXPOSED_MIB.items():
        assert hardware.gpu(name).memory_bytes == mib * 2**20, name
    assert hardware.gpu("TPU v4").memory_bytes == 32 * 2**30          # Google states GiB
    assert hardware.gpu("MI300X").memory_bytes == 8 * 25_767_706_624  # eight CPX partitions
    # an HBM card's label is close to its GiB; the L40S's "48 GB" is decimal
    assert hardware.gpu("H100 SXM").memory_gib == pytest.approx(79.65, abs=0.005)
    assert hardware.gpu("L40S").memory_gb == pytest.approx(48.3, abs=0.05)
    for g in hardware.CATALOG.values():
        assert g.label_bytes and g.memory_source, g.name


def _sparse_bf16(note: str):
    """The sparse BF16 figure a note quotes ("1,979 TFLOPS BF16 is the sparse figure"), in FLOP/s, or None."""
    found = re.search(r"([\d,.]+) TFLOPS BF16 is (?:the )?(?:2:4-)?sparse", note)
    return float(found.group(1).replace(",", "")) * hardware.TERA if found else None


def test_every_dense_peak_lies_below_the_sparse_figure_its_note_quotes():
    quoted = {g.name: _sparse_bf16(g.note) for g in hardware.CATALOG.values() if _sparse_bf16(g.note)}
    assert set(quoted) >= {"A100 80GB", "A100 40GB", "A800 80GB", "H100 SXM", "H800", "B200", "L40S", "L4"}
    for name, sparse in quoted.items():
        dense = hardware.gpu(name).bf16_flops_per_s
        assert dense < sparse <= 2.05 * dense, name   # 2:4 sparsity doubles the peak (L40S: 733 over 362.05)


@pytest.mark.parametrize("variant, original, nvlink", [("H800", "H100 SXM", 400e9), ("A800 80GB", "A100 80GB", 400e9)])
def test_the_export_variants_keep_the_compute_and_lose_nvlink(variant, original, nvlink):
    v, o = hardware.gpu(variant), hardware.gpu(original)
    for field in ("bf16_flops_per_s", "fp8_flops_per_s", "tf32_flops_per_s", "fp32_flops_per_s", "memory_bytes",
                  "bandwidth_bytes_per_s"):
        assert getattr(v, field) == getattr(o, field), field
    assert v.interconnect_bytes_per_s == nvlink < o.interconnect_bytes_per_s


def test_the_h20_keeps_hopper_nvlink_with_a_fraction_of_the_compute():
    h20, h100 = hardware.gpu("H20"), hardware.gpu("H100 SXM")
    assert h20.bf16_flops_per_s == 148 * hardware.TERA < h100.bf16_flops_per_s / 6
    assert h20.interconnect_bytes_per_s == h100.interconnect_bytes_per_s
    assert h20.bandwidth_bytes_per_s > h100.bandwidth_bytes_per_s


def test_tpus_are_chips_on_ici_with_no_cuda_core_figures():
    for name, bf16, hbm in (("TPU v4", 275, 1200e9), ("TPU v5e", 197, 819e9), ("TPU v5p", 459, 2765e9)):
        tpu = hardware.gpu(name)
        assert tpu.bf16_flops_per_s == bf16 * hardware.TERA and tpu.bandwidth_bytes_per_s == hbm
        assert tpu.interconnect.startswith("ICI") and tpu.fp32_flops_per_s is None and tpu.fp8_flops_per_s is None
        assert "exposed memory" in tpu.recalled


def test_a_70b_training_plan_on_a100s_takes_the_count_the_exposed_bytes_give():
    states = 70e9 * 16                             # mixed-precision AdamW
    by_label = math.ceil(states / (0.8 * 80e9))    # 80 GB read as 80e9 bytes: 17.5 -> 18
    by_exposed = math.ceil(states / (0.8 * 80 * 2**30))   # 80 GiB exposed: 16.3 -> 17
    assert (by_label, by_exposed) == (18, 17)
    assert plans.state_gpus(70e9, 16, "A100 80GB", margin=0.2) == by_exposed
    assert plans.state_gpus(70e9, 16, "A100 80GB", margin=0) == math.ceil(states / (80 * 2**30)) == 14
    assert plans.usable_bytes("A100 80GB") == pytest.approx(0.8 * 85_899_345_920)


def test_the_fit_check_now_holds_what_80_gib_holds():
    between = 68.6e9   # over 80% of 80e9 (64e9), under 80% of 80 GiB (68.72e9)
    assert plans.fits(between, "A100 80GB") and not plans.fits(between, "H100 SXM")   # 79.6 GiB: 68.4e9 usable
