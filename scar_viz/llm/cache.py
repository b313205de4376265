"""The chat replies' disk cache."""

from __future__ import annotations

from pathlib import Path

from scar_viz.runtime.sqlite_cache import SqliteCache


class LLMCache(SqliteCache):
    """Replies on disk (SQLite): the digest of (base URL, model, messages, parameters) →
    reply text and its usage. Neither the key nor the base URL's credentials are stored."""

    def __init__(self, path: str | Path | None = None, degrade: bool = False) -> None:
        super().__init__(
            path,
            "llm.sqlite",
            "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, model TEXT NOT NULL, "
            "text TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, "
            "completion_tokens INTEGER NOT NULL)",
            degrade,
        )

    def get(self, key: str) -> tuple[str, int, int] | None:
        row = self._run(
            lambda db: db.execute(
                "SELECT text, prompt_tokens, completion_tokens FROM replies WHERE key = ?", [key]
            ).fetchone(),
            None,
        )
        return (row[0], int(row[1]), int(row[2])) if row else None

    def put(self, key: str, model: str, text: str, prompt: int, completion: int) -> None:
        self._run(
            lambda db: db.execute(
                "INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?)",
                [key, model, text, prompt, completion],
            ),
            None,
        )

    def count(self) -> int:
        return self._run(lambda db: db.execute("SELECT COUNT(*) FROM replies").fetchone()[0], 0)
