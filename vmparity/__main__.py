"""`python -m vmparity …`: the same command as `vmparity …`."""

import sys

from .cli import main

sys.exit(main())
