"""The links a GPU's KV cache travels over when a server moves it out of GPU memory and back: to the host's memory
over PCIe or NVLink-C2C, or to SSDs behind them. One direction's bandwidth each, as data, with its source.

A cache brought back moves one way (host to GPU), so each row is one direction's peak: the datasheets print both
directions added ("128 GB/s", "900 GB/s"). Transfers reach less than the peak; the rows are ceilings.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core._validate import lookup
from ..core.i18n import N_
from .accelerators import GB_S


@dataclass(frozen=True)
class HostLink:
    name: str
    bytes_per_s: float          # one direction, peak
    source: str


HOST_LINKS = {link.name: link for link in (
    HostLink("PCIe 4.0 x16", 32 * GB_S, N_("PCIe 4.0: 16 GT/s a lane, 16 lanes, 128b/130b coding: 31.5 GB/s each way "
                                            "(NVIDIA's A100 datasheet: PCIe Gen4 64 GB/s both ways)")),
    HostLink("PCIe 5.0 x16", 64 * GB_S, N_("NVIDIA H100 datasheet: PCIe Gen5 128 GB/s, both ways added; the H100 "
                                            "SXM's and H200's link to the host")),
    HostLink("NVLink-C2C", 450 * GB_S, N_("NVIDIA Grace Hopper Superchip: NVLink-C2C 900 GB/s both ways, 450 GB/s "
                                          "each way (ten links of 45 GB/s a direction)")),
)}


def host_link(link) -> HostLink:
    """A link by name ("PCIe 5.0 x16", "NVLink-C2C")."""
    return lookup("link", link, HOST_LINKS)
