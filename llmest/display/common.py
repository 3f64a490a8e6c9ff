"""What several reports say alike: the price of a GPU-hour and where it comes from, a duration in milliseconds."""

from __future__ import annotations

from ..catalog import hardware
from ..core.i18n import _
from ..core.units import format_usd


def price_text(price: float, gpu: str, listed: bool) -> str:
    """"$4.00 per GPU-hour, the listed price of the H100 SXM: the middle of ...", or "... (given)"."""
    if not listed:
        return _("{price} per GPU-hour (given)").format(price=format_usd(price))
    return _("{price} per GPU-hour, the listed price of the {gpu}: {source}").format(
        price=format_usd(price), gpu=gpu, source=_(hardware.PRICE_PER_GPU_HOUR[gpu][1]))


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.2f} ms"
