"""The one error the library raises for bad input (re-exported by ``llmest`` and ``llmest.core._validate``)."""


class InputError(ValueError):
    """Bad input. ``param`` is the name of the offending parameter, so a widget can show the message beside it."""

    def __init__(self, param: str, message: str):
        super().__init__(message)
        self.param = param
