"""What a store was built with (model, chunking, prepending) and the check that a reader asks
for the same: a store's vectors mean something only under the model and chunking that made
them.

The record is one row of the store's ``meta`` table (a JSON text), so it lives wherever the
store lives (a folder, object storage).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.common.errors import UserError

FORMAT = 1
"""The store layout's version; a store of another version is refused."""


class StoreError(UserError, ValueError):
    """A store that cannot be written or read as asked; the message is meant for the user."""


@dataclass(frozen=True)
class StoreMeta:
    """The setting a store's vectors were made under.

    Attributes:
        model: the embedder's stable id (``hash:256``).
        label: its readable label.
        config: the chunking.
        prepend: chunks were embedded with their section path first.
        name: the corpus' name (the joined document's).
        joined: the store held two or more files when last written (with prepending, a section
            path starts with the file's path only then, as labels show it, so a change
            re-embeds every file).
    """

    model: str
    label: str
    config: ChunkingConfig
    prepend: bool
    name: str
    joined: bool = False

    def to_json(self) -> str:
        data = asdict(self)
        if not data["config"]["stored"]:  # a store's own chunking: the format as it was
            del data["config"]["stored"]
        data["format"] = FORMAT
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> StoreMeta:
        try:
            data = json.loads(text)
            if data.pop("format", None) != FORMAT:
                raise StoreError("The store was written by another version of scar-viz.")
            data["config"] = ChunkingConfig(**data["config"])
            return cls(**data)
        except (TypeError, KeyError, json.JSONDecodeError) as exc:
            raise StoreError("The store's metadata is unreadable.") from exc

    @property
    def setting(self) -> str:
        """``model · chunking[ · prepended]``, as messages name it."""
        return setting_label(self.model, self.config, self.prepend)


def setting_label(model: str, config: ChunkingConfig, prepend: bool) -> str:
    return f"{model} · {config.label}" + (" · prepended" if prepend else "")


def check_setting(
    meta: StoreMeta, uri: str, model: str, config: ChunkingConfig, prepend: bool
) -> None:
    """Refuse a store made under another model, chunking or prepending than asked.

    Raises:
        StoreError: one message naming both settings.
    """
    if (meta.model, meta.config, meta.prepend) != (model, config, prepend):
        raise StoreError(
            f"The store '{uri}' was made with {meta.setting}, not "
            f"{setting_label(model, config, prepend)}; give the same --model, chunking and "
            "--prepend, or index into another store."
        )
