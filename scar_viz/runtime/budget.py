"""One visitor's budget of bytes held: what a session keeps (its uploaded files, the text read
from them, the query files and documents it holds) and what it is about to allocate (a model's
vectors) are counted against one stated number, and an addition that would pass it is refused
in one sentence before anything is allocated."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from scar_viz.common.errors import SettingsError

SESSION_MB_ENV = "SCAR_VIZ_SESSION_MB"
"""The environment variable (or ``st.secrets`` entry, lower case) an operator sets the
per-session budget with, in MiB."""
DEFAULT_SESSION_MB = 1024
"""The per-session budget when the operator sets none: 1 GiB."""
MIN_SESSION_MB, MAX_SESSION_MB = 1, 1_048_576
"""The range an operator's value must lie in (1 MiB to 1 TiB)."""


@dataclass(frozen=True)
class SessionBudget:
    """At most ``max_bytes`` held by one visitor's session."""

    max_bytes: int = DEFAULT_SESSION_MB * 2**20


def budget_from(value: str | None) -> SessionBudget:
    """The budget an operator's value (MiB, as text) states; the default when it is empty.

    Raises:
        SettingsError: the value is not a whole number of MiB within the stated range.
    """
    text = (value or "").strip()
    if not text:
        return SessionBudget()
    try:
        mb = int(text)
    except ValueError:
        mb = 0
    if not MIN_SESSION_MB <= mb <= MAX_SESSION_MB:
        raise SettingsError(
            f"{SESSION_MB_ENV} must be a whole number of MiB from {MIN_SESSION_MB} to "
            f"{MAX_SESSION_MB:,}, not {text[:40]!r}."
        )
    return SessionBudget(mb * 2**20)


def budget_from_env(env: Mapping[str, str]) -> SessionBudget:
    """The budget ``env`` (``os.environ``) states under :data:`SESSION_MB_ENV`."""
    return budget_from(env.get(SESSION_MB_ENV))


def refusal(budget: SessionBudget, held: int, adding: int, what: str) -> str:
    """Empty when ``adding`` bytes fit beside the ``held`` ones; else the one sentence that
    refuses ``what`` (the start of a sentence: "This upload"), naming both sizes and the budget."""
    if held + adding <= budget.max_bytes:
        return ""
    return (
        f"{what} would need {size(adding)} and this session already "
        f"holds {size(held)}; this server allows {size(budget.max_bytes)} a session, so "
        "nothing was changed: use a smaller input or open a new tab."
    )


def size(n: int) -> str:
    """Bytes for a person: GiB, MiB or KiB with one decimal where it matters."""
    if n >= 2**30:
        return f"{n / 2**30:.1f} GiB"
    if n >= 2**20:
        return f"{n / 2**20:.1f} MiB"
    return f"{max(n, 0) / 2**10:.0f} KiB"
