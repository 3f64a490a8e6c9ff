"""A keyed collection of the chapters' items (figures of the material, exercises)."""

from __future__ import annotations

from ._validate import lookup


class Registry(dict):
    def __init__(self, kind: str):
        super().__init__()
        self.kind = kind

    def register(self, *items) -> None:
        for item in items:
            if item.key in self:
                raise ValueError(f"{self.kind} {item.key!r} is registered twice")
            self[item.key] = item

    def lookup(self, key: str):
        """The item; an unknown key gets the close keys suggested."""
        return lookup(self.kind, key, self)
