"""`python -m fiverow ...`: the `fiverow` command."""

import sys

from .cli import main

sys.exit(main())
