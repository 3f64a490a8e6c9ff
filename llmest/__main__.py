"""``python -m llmest``: the llmest command."""

import sys

from .cli import main

sys.exit(main())
