"""Accelerators as data: memory, bandwidth, dense peak FLOP/s by precision, interconnect, and where each figure
comes from.

Every peak is **dense** (no 2:4 sparsity): datasheets often print the sparse figure, twice the dense one.
Memory is in GB (1e9 bytes) as the vendors state it. ``None`` means the vendor states no such figure.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._validate import InputError, lookup

TERA = 1e12


@dataclass(frozen=True)
class GPU:
    name: str
    memory_bytes: float
    bandwidth_bytes_per_s: float
    bf16_flops_per_s: float | None     # dense BF16 (or FP16) tensor-core peak, FP32 accumulate
    fp8_flops_per_s: float | None
    tf32_flops_per_s: float | None
    fp32_flops_per_s: float             # non-tensor FP32 (CUDA cores)
    interconnect_bytes_per_s: float | None
    interconnect: str
    source: str
    note: str = ""
    physical_memory_bytes: float | None = None   # when less than all of it is usable
    recalled: tuple = ()    # fields not found in a stored copy of the source: check before relying on them

    @property
    def memory_gb(self) -> float:
        return self.memory_bytes / 1e9


CATALOG = {gpu.name: gpu for gpu in [
    GPU("V100", 32e9, 900e9, 125 * TERA, None, None, 15.7 * TERA, 300e9, "NVLink 2 (300 GB/s)",
        "NVIDIA V100 datasheet (SXM2)", "No BF16: 125 TFLOPS is FP16 tensor; 16 GB and 32 GB versions exist.",
        recalled=("bandwidth",)),
    GPU("A100 80GB", 80e9, 2039e9, 312 * TERA, None, 156 * TERA, 19.5 * TERA, 600e9, "NVLink 3 (600 GB/s)",
        "NVIDIA A100 datasheet (SXM, 80GB)", "624 TFLOPS BF16 is the 2:4-sparse figure."),
    GPU("H100 SXM", 80e9, 3.35e12, 989.4 * TERA, 1979 * TERA, 494.7 * TERA, 67 * TERA, 900e9, "NVLink 4 (900 GB/s)",
        "NVIDIA H100 datasheet (SXM5)", "1,979 TFLOPS BF16 is the sparse figure."),
    GPU("H100 PCIe", 80e9, 2.0e12, 756 * TERA, 1513 * TERA, 378 * TERA, 51 * TERA, 600e9, "NVLink bridge (600 GB/s)",
        "NVIDIA H100 datasheet (PCIe)", "The datasheet prints sparse figures, 'one half lower without'."),
    GPU("H200", 141e9, 4.8e12, 989.4 * TERA, 1979 * TERA, 494.7 * TERA, 67 * TERA, 900e9, "NVLink 4 (900 GB/s)",
        "NVIDIA H200 datasheet (SXM)", "Same compute as H100 SXM; more and faster memory."),
    GPU("B200", 180e9, 7.7e12, 2250 * TERA, 4500 * TERA, 1100 * TERA, 75 * TERA, 1.8e12, "NVLink 5 (1.8 TB/s)",
        "NVIDIA HGX B200 datasheet", "180 GB usable of 192 GB physical; 4,500 TFLOPS BF16 is sparse.",
        physical_memory_bytes=192e9),
    GPU("RTX A6000", 48e9, 768e9, 154.8 * TERA, None, 77.4 * TERA, 38.7 * TERA, 112.5e9, "NVLink bridge, 2-way",
        "NVIDIA Ampere GA102 whitepaper, Table 3",
        "38.7 TFLOPS is the FP32 CUDA-core peak (10,752 cores × 2 × 1.80 GHz), not BF16.",
        recalled=("TF32", "interconnect")),
    GPU("RTX 4090", 24e9, 1008e9, 165.2 * TERA, 330.3 * TERA, 82.6 * TERA, 82.6 * TERA, None, "none (PCIe only)",
        "NVIDIA Ada Lovelace whitepaper (v2.02), Appendix A",
        "82.6 TFLOPS is the FP32 CUDA-core peak. Dense BF16 tensor (FP32 accumulate) is 165.2, as is FP16 with FP32 "
        "accumulate; 330.3 is FP16 with FP16 accumulate, a mode BF16 does not have.",
        recalled=("TF32",)),
    GPU("L40S", 48e9, 864e9, 362.05 * TERA, 733 * TERA, 183 * TERA, 91.6 * TERA, None, "none (PCIe Gen4)",
        "NVIDIA L40S datasheet", "733 TFLOPS BF16 is the sparse figure."),
    GPU("MI300X", 192e9, 5.3e12, 1307.4 * TERA, 2614.9 * TERA, 653.7 * TERA, 163.4 * TERA, 896e9,
        "Infinity Fabric (896 GB/s)", "AMD Instinct MI300X datasheet", recalled=("TF32", "interconnect")),
]}


# Cloud prices in US dollars per GPU-hour. The material gives ranges (seed 000: "A100 云服务：~$2-3/小时", "H100 云服务：
# ~$3-5/小时", and about $3 an hour for a V100 in its GPT-3 answer); the workbook takes the middle of each. The H200 and
# B200 figures are the workbook's own assumptions, not quotes. Other GPUs have none: give a price.
PRICE_PER_GPU_HOUR = {
    "A100 80GB": (2.5, "the middle of the material's ~$2-3 per hour (seed 000)"),
    "H100 SXM": (4.0, "the middle of the material's ~$3-5 per hour (seed 000)"),
    "V100": (3.0, "the material's about $3 per hour (seed 000, its GPT-3 cost answer)"),
    "H200": (4.5, "assumed by the workbook, not a quote"),
    "B200": (6.0, "assumed by the workbook, not a quote"),
}


def gpu(name) -> GPU:
    """A GPU from the catalog by name, in any case and spacing ("h100 sxm", "A100-80GB"); a GPU passes through; an
    unknown name gets the close names suggested."""
    if isinstance(name, GPU):
        return name
    return lookup("gpu", name, CATALOG)


def price_per_gpu_hour(name) -> float:
    """The workbook's price of one GPU-hour of a GPU (``PRICE_PER_GPU_HOUR``, with where each figure comes from)."""
    g = gpu(name)
    if g.name not in PRICE_PER_GPU_HOUR:
        raise InputError("price_per_gpu_hour", f"no price per GPU-hour is listed for {g.name!r} (only for "
                                               f"{', '.join(PRICE_PER_GPU_HOUR)}): give one.")
    return PRICE_PER_GPU_HOUR[g.name][0]
