"""``python -m scar_viz``: see :mod:`scar_viz.cli.main`."""

import sys

from scar_viz.cli.main import main

sys.exit(main())
