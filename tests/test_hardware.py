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
    "tpuv5p": "TPU v5p", "GB200 NVL72": "GB200 NVL72", "gb200-nvl72": "GB200 NVL72", "gb300 nvl72": "GB300 NVL72",
    "b300": "B300", "H100 NVL": "H100 NVL", "h100-nvl": "H100 NVL", "h200 nvl": "H200 NVL", "mi325x": "MI325X",
    "MI355X": "MI355X", "tpu-v6e": "TPU v6e", "TPU v7": "TPU v7", "tpuv7": "TPU v7", "trainium2": "Trainium2",
    "gaudi3": "Gaudi 3", "Gaudi 3": "Gaudi 3", "rtx-5090": "RTX 5090",
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
               "V100": 32_768, "RTX A6000": 49_140, "RTX 4090": 24_564, "L40S": 46_068, "L4": 23_034,
               "GB200 NVL72": 189_471, "GB300 NVL72": 284_208, "B300": 275_040, "H100 NVL": 95_830,
               "H200 NVL": 143_771, "RTX 5090": 32_607, "Gaudi 3": 131_072}   # Gaudi 3: hl-smi


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
    assert set(quoted) >= {"A100 80GB", "A100 40GB", "A800 80GB", "H100 SXM", "H800", "B200", "L40S", "L4",
                           "GB200 NVL72", "GB300 NVL72", "B300", "H100 NVL", "H200 NVL", "MI325X", "MI355X"}
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


# The vendor's own FP8 against BF16: twice it (a dense FP8 tensor peak is two BF16 ones), the same (Gaudi 3's matrix
# engines), or another ratio (Trainium2: 1,299 against 667 TFLOPS); TPU v6e and v5p state FP8 at the BF16 figure,
# which the catalog leaves out.
FP8_TWICE_BF16 = ("H100 SXM", "H100 PCIe", "H200", "B200", "B300", "GB200 NVL72", "GB300 NVL72", "H100 NVL",
                  "H200 NVL", "MI300X", "MI325X", "MI355X", "TPU v7", "RTX 5090")


def test_the_fp8_peak_is_twice_the_bf16_peak_where_the_vendor_says_so():
    for name in FP8_TWICE_BF16:
        g = hardware.gpu(name)
        assert g.fp8_flops_per_s == pytest.approx(2 * g.bf16_flops_per_s, rel=1e-3), name
    gaudi, trainium = hardware.gpu("Gaudi 3"), hardware.gpu("Trainium2")
    assert gaudi.fp8_flops_per_s == gaudi.bf16_flops_per_s == 1835 * hardware.TERA
    assert (trainium.fp8_flops_per_s, trainium.bf16_flops_per_s) == (1299 * hardware.TERA, 667 * hardware.TERA)
    assert hardware.gpu("TPU v6e").fp8_flops_per_s is None and hardware.gpu("TPU v6e").bf16_flops_per_s == 918e12


def test_fp4_peaks_are_the_blackwell_and_cdna4_rows_and_blackwell_ultra_has_1_5_times_blackwells():
    with_fp4 = {name for name, g in hardware.CATALOG.items() if g.fp4_flops_per_s}
    assert with_fp4 == {"B200", "B300", "GB200 NVL72", "GB300 NVL72", "MI355X", "RTX 5090"}
    for name in ("B200", "GB200 NVL72", "MI355X"):       # FP4 at twice FP8
        g = hardware.gpu(name)
        assert g.fp4_flops_per_s == pytest.approx(2 * g.fp8_flops_per_s, rel=1e-4), name
    assert hardware.gpu("GB300 NVL72").fp4_flops_per_s == 1.5 * hardware.gpu("GB200 NVL72").fp4_flops_per_s == 15e15
    assert hardware.gpu("B300").fp4_flops_per_s == 108e15 / 8       # NVIDIA's HGX B300 figure over its 8 GPUs
    # the rack's own figures: 72 GPUs, 1,440 PFLOPS FP4 sparse (GB200) and 1,080 dense (GB300), 576 TB/s of HBM
    assert 72 * 2 * hardware.gpu("GB200 NVL72").fp4_flops_per_s == 1440e15
    assert 72 * hardware.gpu("GB300 NVL72").fp4_flops_per_s == 1080e15
    assert 72 * hardware.gpu("GB200 NVL72").bandwidth_bytes_per_s == 576e12


def test_the_rows_of_2024_to_2026_carry_their_sources_and_scale_up_domains():
    domains = {"GB200 NVL72": 72, "GB300 NVL72": 72, "B300": 8, "H100 NVL": 8, "H200 NVL": 4, "MI325X": 8,
               "MI355X": 8, "TPU v6e": 256, "TPU v7": 9216, "Trainium2": 64, "Gaudi 3": 8, "RTX 5090": 8}
    for name, domain in domains.items():
        g = hardware.gpu(name)
        assert g.source and g.note and g.label_bytes and g.memory_source, name
        assert g.network.gpus_per_node == domain and g.network.source, name
    tpu7 = hardware.gpu("TPU v7")     # Cloud TPU docs, TPU7x: 192 GiB at 7,380 GB/s, ICI 1,200 GB/s both ways
    assert (tpu7.memory_bytes, tpu7.bandwidth_bytes_per_s, tpu7.network.intra_node_bytes_per_s) == (
        192 * 2**30, 7380e9, 600e9)
    assert hardware.gpu("Trainium2").memory_bytes == 96 * 2**30 and hardware.gpu("MI355X").tf32_flops_per_s is None
