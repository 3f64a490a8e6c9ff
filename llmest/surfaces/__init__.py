"""The surfaces: the command line (``cli``), the notebook calculators (``widgets``) and the calculator app
(``app/``). Each calls the plans and shows their results' displays."""
