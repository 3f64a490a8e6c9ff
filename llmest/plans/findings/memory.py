"""Chapter 2's findings: memory in training and serving (``llmest.display.findings.memory`` writes them)."""

from __future__ import annotations

from ...catalog import hardware
from ...core import _validate as v
from ...core.report import Finding
from ...display.findings import memory as shown
from ...formulas import memory as mem
from ..memory_plan import state_gpus as gpus_for_states


@v.checked
def state_gpus(n_params, bytes_per_param=16, gpu="A100 80GB", margin=mem.MEMORY_MARGIN) -> Finding:
    """The GPUs that hold the training states alone, sharded evenly, with nothing kept free and with ``margin``."""
    return Finding(dict(n_params=n_params, bytes_per_param=bytes_per_param, gpu=hardware.gpu(gpu).name, margin=margin,
                        bare=gpus_for_states(n_params, bytes_per_param, gpu),
                        kept=gpus_for_states(n_params, bytes_per_param, gpu, margin)), shown.state_gpus)
