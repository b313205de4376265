"""``--smoke``: every benchmark's tiny run (``benchmarks/*.py``), so the tests keep each script
working.

A smoke run takes the built-in sample (the harbour manual and its 24 labelled queries, or the
kestrel corpus) instead of RFC 9293, the hashing embedder instead of the default model, and
the fewest rounds; it takes seconds, and its figures mean nothing. It never writes the
results file the docs cite: an ``--out`` left at its default goes to a temporary folder.
``tests/test_benchmark_smoke.py`` runs each script so.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "scar_viz" / "documents" / "samples"
SAMPLE = SAMPLES / "harbor_manual.md"
SAMPLE_QUERIES = SAMPLES / "harbor_manual.queries.jsonl"
SAMPLE_CORPUS = SAMPLES / "kestrel"
SAMPLE_CORPUS_QUERIES = SAMPLES / "kestrel.queries.jsonl"


def parse(parser: argparse.ArgumentParser, argv: list[str] | None, **tiny: Any):
    """``parser``'s arguments with ``--smoke`` added; under ``--smoke`` each of ``tiny`` (an
    argument's name and its tiny value) replaces the argument's value, unless the command line
    set it, and an ``--out`` at its default moves to a temporary folder."""
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="a tiny run (built-in sample, hashing embedder): seconds; the figures mean nothing",
    )
    args = parser.parse_args(argv)
    if not args.smoke:
        return args
    for name, value in tiny.items():
        if getattr(args, name) == parser.get_default(name):
            setattr(args, name, value)
    default = parser.get_default("out")
    if hasattr(args, "out") and args.out == default:  # never the results file the docs cite
        out = Path(tempfile.mkdtemp(prefix="scar-smoke-")) / (Path(default or "smoke.json").name)
        args.out = str(out) if isinstance(default, str) else out
    return args
