#!/usr/bin/env bash
# Create .venv (if needed) and install the given requirements file into it. Idempotent: a stamp
# file records the requirements' hash, so a warm machine skips pip entirely.
set -euo pipefail
cd "$(dirname "$0")/.."
req="${1:-requirements.txt}"
py="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$py" -m venv .venv
fi
stamp=".venv/.installed-$(basename "$req")"
want="$(cat "$req" requirements*.txt | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  # torch first, pinned, so nothing pulls a CUDA build
  .venv/bin/python -m pip install --quiet "$(grep -E '^torch==' requirements.txt)"
  .venv/bin/python -m pip install --quiet -r "$req"
  echo "$want" > "$stamp"
fi
