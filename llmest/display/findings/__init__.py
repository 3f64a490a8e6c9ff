"""How each finding of ``llmest.plans.findings`` reads: one function a finding, of the same name, in the module of
the same name, taking the figures and returning a ``Report`` in the current language."""
