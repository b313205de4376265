"""Data shipped with the package: the default learned gate (``default_gate.json``)."""
