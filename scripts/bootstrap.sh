#!/usr/bin/env bash
# Create .venv (if needed), install the given pinned requirements file into it, then this
# checkout itself, editable, with the extra that file pins (requirements-dev.txt: [dev];
# requirements.txt: none). The editable install puts the repository's root on the venv's path
# (pyproject.toml, dev-mode-dirs) and the scar-viz command in .venv/bin: scar_viz, ui, scripts,
# benchmarks and tests import from any folder, with no sys.path edits (docs/architecture.md).
# Idempotent: a stamp file records the requirements' and pyproject.toml's hash, so a warm
# machine skips pip entirely.
set -euo pipefail
cd "$(dirname "$0")/.."
req="${1:-requirements.txt}"
py="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$py" -m venv .venv
fi
stamp=".venv/.installed-$(basename "$req")"
want="$(cat "$req" requirements*.txt pyproject.toml | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  # torch first, pinned, so nothing pulls a CUDA build
  .venv/bin/python -m pip install --quiet "$(grep -E '^torch==' requirements.txt)"
  # requirements-NAME.txt pins the NAME extra; one resolve of both, so pip refuses a pin
  # outside pyproject.toml's range (tests/test_requirements.py checks the names agree)
  extra="$(basename "$req" .txt)"
  extra="${extra#requirements}"
  extra="${extra#-}"
  .venv/bin/python -m pip install --quiet -r "$req" -e ".${extra:+[$extra]}"
  echo "$want" > "$stamp"
fi
