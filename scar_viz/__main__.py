"""``python -m scar_viz``: see :mod:`scar_viz.cli`."""

import sys

from scar_viz.cli import main

sys.exit(main())
