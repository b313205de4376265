#!/usr/bin/env bash
# Set up (first time) and run the whole test suite, browser tests included.
# --fast: the day-to-day tier: everything but the browser tests, the tests that load the
# embedded default model and the tests that start a Ray cluster
# (pytest -m "not browser and not model and not ray"); no Chromium needed.
# Both leave out the benchmarks' slow smoke runs (marked bench; .ci/run runs them: -m bench,
# a later -m replaces the tier's).
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
args=()
for arg in "$@"; do
  if [ "$arg" = "--fast" ]; then fast=1; else args+=("$arg"); fi
done
bash scripts/bootstrap.sh requirements-dev.txt
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# Python's bytecode cache (__pycache__, ignored by git) is written even where the shell sets
# PYTHONDONTWRITEBYTECODE (this project's machines do): without it every pytest process, app
# server and command-line subprocess compiled the checkout again, and pytest rewrote every test
# module's asserts again: collecting the --fast tier took 17-25 s, 9-10 s with the cache
# (pytest --collect-only, three runs each)
unset PYTHONDONTWRITEBYTECODE
# Tests run in parallel worker processes (pytest-xdist), one per CPU core up to 4 by default;
# SCAR_VIZ_TEST_WORKERS=N sets N (1: one process, no workers).
workers="${SCAR_VIZ_TEST_WORKERS:-$(n=$(nproc 2>/dev/null || echo 1); echo $((n < 4 ? n : 4)))}"
parallel=()
if [ "$workers" -gt 1 ]; then parallel=(-n "$workers" --dist worksteal); fi
if [ "$fast" = 1 ]; then
  exec .venv/bin/python -m pytest -m "not browser and not model and not ray and not bench" ${parallel[@]+"${parallel[@]}"} ${args[@]+"${args[@]}"}
fi
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "Installing Debian's chromium for the browser tests…"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null
  else
    echo "No /usr/bin/chromium and no root: browser tests will be skipped (install chromium)."
  fi
fi
exec .venv/bin/python -m pytest -m "not bench" ${parallel[@]+"${parallel[@]}"} ${args[@]+"${args[@]}"}
