"""The display layer: how each result shows itself (``report``: the ``Report`` type and the ``Shows`` mixin), and
each plan result's report (``memory``, ``time``, ``corpus``, ``serving``, ``layout``). A report module reads the
result it is given and imports no plan, so the plans' result types can use it."""
