"""Which snapshots a prune keeps: the retention policy of a source.

A policy keeps the newest ``keep_last`` snapshots, and then the newest snapshot of each of the
last ``keep_daily`` days, ``keep_weekly`` ISO weeks and ``keep_monthly`` months. A snapshot
kept by any rule is kept; the rules never delete anything on their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Snapshot:
    id: str
    taken: datetime
    tags: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Policy:
    keep_last: int = 3
    keep_daily: int = 7
    keep_weekly: int = 4
    keep_monthly: int = 12

    def validate(self) -> None:
        """Refuse a policy that would keep nothing: a prune under it would empty the source."""
        counts = (self.keep_last, self.keep_daily, self.keep_weekly, self.keep_monthly)
        if any(n < 0 for n in counts):
            raise ValueError("Retention counts cannot be negative.")
        if not any(counts):
            raise ValueError("This policy keeps no snapshot; set at least one count above 0.")


def _bucket(snapshot: Snapshot, unit: str) -> tuple[int, ...]:
    t = snapshot.taken
    if unit == "daily":
        return (t.year, t.month, t.day)
    if unit == "weekly":
        year, week, _ = t.isocalendar()
        return (year, week)
    return (t.year, t.month)


def to_keep(snapshots: list[Snapshot], policy: Policy) -> set[str]:
    """The ids of the snapshots a prune under ``policy`` keeps."""
    policy.validate()
    newest_first = sorted(snapshots, key=lambda s: s.taken, reverse=True)
    kept = {s.id for s in newest_first[: policy.keep_last]}
    for unit, count in (
        ("daily", policy.keep_daily),
        ("weekly", policy.keep_weekly),
        ("monthly", policy.keep_monthly),
    ):
        seen: list[tuple[int, ...]] = []
        for snap in newest_first:
            bucket = _bucket(snap, unit)
            if bucket not in seen and len(seen) < count:
                seen.append(bucket)
                kept.add(snap.id)
    # Two exceptions override every count: a snapshot tagged "keep" is never pruned, and
    # neither is the newest snapshot of the source, so a prune can never leave it empty.
    kept |= {s.id for s in snapshots if "keep" in s.tags}
    if newest_first:
        kept.add(newest_first[0].id)
    return kept
