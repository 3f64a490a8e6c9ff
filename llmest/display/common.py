"""What several reports say alike: a figure in its unit, the price of a GPU-hour and where it comes from, a duration
in milliseconds, a yes or no as the material's functions printed it."""

from __future__ import annotations

from ..catalog import hardware
from ..core.i18n import N_, _
from ..core.units import UNITS, format_usd

TRUE_FALSE = {True: N_("True"), False: N_("False")}   # a yes or no as the material's Python printed it


def number(value, unit: str) -> str:
    """The figure as the table of units writes it, without its label (a field's label names the unit)."""
    return UNITS[unit].format(value)


def shown(value, unit: str) -> str:
    """The figure and its unit's label: "15.2 days", "4.2e22 FLOPs"."""
    return UNITS[unit].show(value)


def price_text(price: float | None, gpu: str, listed: bool) -> str:
    """"$4.00 per GPU-hour, the listed price of the H100 SXM: the middle of ...", or "... (given)", or, with no
    price, that none is listed."""
    if price is None:
        return no_price_text(gpu)
    if not listed:
        return _("{price} per GPU-hour (given)").format(price=format_usd(price))
    return _("{price} per GPU-hour, the listed price of the {gpu}: {source}").format(
        price=format_usd(price), gpu=gpu, source=_(hardware.PRICE_PER_GPU_HOUR[gpu][1]))


def no_price_text(gpu: str) -> str:
    if not gpu:
        return _("no price: a GPU given by its peak alone has no listed price; give a price per GPU-hour for the cost")
    return _("no price: none is listed for the {gpu}; give a price per GPU-hour for the cost").format(gpu=gpu)


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.2f} ms"
