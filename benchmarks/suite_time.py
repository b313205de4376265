"""The test suite's own time: the README's test command, from a fresh clone, installs excluded.

``bash scripts/test.sh`` (every test, browser tests included, with ``CI=true`` so nothing is
skipped) or ``bash scripts/test.sh --fast`` (no browser, no default model), run in a fresh
``git clone`` of this checkout's HEAD. The clone builds its own ``.venv`` with
``scripts/bootstrap.sh`` before the clock starts (minutes, from pip's cache), so no install is
timed: a link to this checkout's ``.venv`` would hold this checkout's editable install, which
``tests/test_install.py`` refuses in the clone, as it should. The development corpus is linked
beside the clone as ``../shared`` where this checkout has one.

Recorded: the wall time of the command, pytest's own count and time, the ten slowest test
phases (``--durations=10``), how many app servers and Chromiums the browser tests started,
and the load average before and after (the machine is shared: a figure is only as quiet as
its load). Targets: the whole suite ≤ 8 minutes, ``--fast`` < 3 minutes, on the project's
two-core machine.

Run: ``.venv/bin/python benchmarks/suite_time.py [--fast] [--here] [-- PYTEST ARGS]``
(``--here``: in this checkout instead of a clone). Writes
``benchmarks/results/suite_time.json`` (``suite_time_fast.json`` with ``--fast``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
TARGET_S = {"full": 8 * 60, "fast": 3 * 60}

_SUMMARY = re.compile(r"^=*\s*(?P<counts>\d+ \w+.*?) in (?P<secs>[\d.]+)s\b", re.M)
_DURATION = re.compile(r"^(?P<secs>[\d.]+)s (?P<phase>setup|call|teardown)\s+(?P<test>\S+)$", re.M)
_STARTED = re.compile(
    r"^live app: (?P<servers>\d+) servers started, (?P<browsers>\d+) Chromium", re.M
)


def parse(output: str) -> dict[str, object]:
    """pytest's summary (counts by outcome, its own seconds), the slowest phases as pytest
    printed them, and the live app's server and Chromium starts, from a run's output."""
    summary = list(_SUMMARY.finditer(output))
    if not summary:
        raise ValueError("no pytest summary line in the output")
    last = summary[-1]
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", last.group("counts"))}
    slowest = [
        {"seconds": float(m.group("secs")), "phase": m.group("phase"), "test": m.group("test")}
        for m in _DURATION.finditer(output)
    ]
    started = _STARTED.search(output)
    return {
        "counts": counts,
        "pytest_s": float(last.group("secs")),
        "slowest": slowest,
        "servers_started": int(started.group("servers")) if started else 0,
        "chromium_launched": int(started.group("browsers")) if started else 0,
    }


def fresh_clone(into: Path) -> Path:
    """A clone of this checkout's HEAD under ``into`` (no ``.venv``: :func:`run` builds it),
    and the development corpus beside it as ``../shared`` where this checkout has one."""
    clone = into / ROOT.name
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    shared = ROOT.parent / "shared"
    if shared.exists():
        (into / "shared").symlink_to(shared.resolve(), target_is_directory=True)
    return clone


def run(checkout: Path, fast: bool, extra: list[str], smoke: bool = False) -> dict[str, object]:
    """Run the test command in ``checkout`` (its set-up step first, untimed) and measure it;
    a smoke run times bare pytest instead, so it installs nothing."""
    if not smoke:
        subprocess.run(
            ["bash", "scripts/bootstrap.sh", "requirements-dev.txt"], cwd=checkout, check=True
        )
    command = ["bash", "scripts/test.sh", *(["--fast"] if fast else []), "-q", "--durations=10"]
    if smoke:
        command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
    command += extra
    env = {**os.environ, "CI": "true"}
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    output = done.stdout + done.stderr
    result = {
        "command": " ".join(command),
        "returncode": done.returncode,
        "wall_s": round(wall, 1),
        **parse(output),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }
    if done.returncode != 0:
        result["output_tail"] = output[-4000:]
    return result


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fast", action="store_true", help="time scripts/test.sh --fast")
    parser.add_argument("--here", action="store_true", help="run in this checkout, not a clone")
    parser.add_argument("--out", type=Path, help="where to write the JSON")
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    parser.add_argument("--smoke", action="store_true", help="time one small test module here")
    args = parser.parse_args(argv)
    if args.smoke:  # scripts/bench_smoke.py's rule, written out: this script imports nothing
        args.here, args.fast = True, True  # in this checkout, bare pytest (no install step)
        args.pytest_args = args.pytest_args or ["tests/common/test_fmt.py"]
        args.out = args.out or Path(tempfile.mkdtemp(prefix="scar-smoke-")) / "suite_time.json"
    tier = "fast" if args.fast else "full"
    with tempfile.TemporaryDirectory(prefix="scar-viz-suite-") as tmp:
        checkout = ROOT if args.here else fresh_clone(Path(tmp))
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=checkout, capture_output=True, text=True
        ).stdout.strip()
        result = run(checkout, args.fast, args.pytest_args, smoke=args.smoke)
        if not args.here:
            shutil.rmtree(checkout, ignore_errors=True)
    data = {
        "benchmark": "benchmarks/suite_time.py",
        "tier": tier,
        "commit": head,
        "fresh_clone": not args.here,
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
        "target_s": TARGET_S[tier],
        "met": result["returncode"] == 0 and result["wall_s"] <= TARGET_S[tier],
        **result,
    }
    out = args.out or RESULTS / ("suite_time_fast.json" if args.fast else "suite_time.json")
    out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    counts = ", ".join(f"{n} {word}" for word, n in data["counts"].items())
    print(
        f"{tier}: {data['wall_s']:.0f} s wall ({counts}; pytest {data['pytest_s']:.0f} s), "
        f"target {TARGET_S[tier]} s: {'met' if data['met'] else 'not met'}; "
        f"{data['servers_started']} app servers, {data['chromium_launched']} Chromium; "
        f"load {data['load_average_before'][0]} → {data['load_average_after'][0]}"
    )
    for slow in data["slowest"]:
        print(f"  {slow['seconds']:7.2f} s {slow['phase']:<8} {slow['test']}")
    print(f"wrote {out}")
    return data


if __name__ == "__main__":
    sys.exit(0 if main()["returncode"] == 0 else 1)
