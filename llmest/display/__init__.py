"""The display layer: how each result shows itself. A plan's result builds its ``Report`` (``llmest.core.report``)
here: ``memory``, ``time``, ``corpus``, ``serving``, ``layout``, with ``common`` for what several say alike; a table
is a ``Table`` (``table``); ``plots`` draws results. A report module reads the result it is given and imports no
plan, so that the plans' result types can use it."""
