"""``python -m llmest``: the llmest command."""

import sys

from .surfaces.cli.main import main

sys.exit(main())
