#!/usr/bin/env bash
# Set up (first time) and run the app on the embedded default model: http://localhost:8501
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh requirements.txt
export HF_HUB_OFFLINE="${HF_HUB_OFFLINE:-1}"
exec .venv/bin/python -m scripts.serve "$@"
