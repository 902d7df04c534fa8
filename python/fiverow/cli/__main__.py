"""`python -m fiverow.cli ...`: the `fiverow` command."""

import sys

from . import main

sys.exit(main())
