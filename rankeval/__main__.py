"""``python -m rankeval``: the ``rankeval`` command (see :mod:`rankeval.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
