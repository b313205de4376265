"""An OpenAI-compatible ``/embeddings`` endpoint (OpenAI, Azure, Ollama, vLLM, …)."""

from __future__ import annotations

import numpy as np

from scar_viz.common.errors import scrub_secret
from scar_viz.embeddings.base import (
    BaseEmbedder,
    Embedder,
    EmbedderKind,
    EmbeddingError,
    LoadProgress,
)
from scar_viz.runtime.endpoints import OPENAI_BASE_URL, openai_client

OPENAI_DEFAULT_MODEL = "text-embedding-3-large"


class OpenAIEmbedder(BaseEmbedder):
    """An OpenAI-compatible endpoint; ``load()`` builds the client (nothing slow to load).

    The key comes from the caller only: the environment is never read here, so a key the
    server holds reaches an endpoint only where the caller chose to send it (the app follows
    the operator's rules in :mod:`scar_viz.runtime.endpoints`; the command line passes its user's
    ``OPENAI_API_KEY``). It is never part of ``model_id``, ``label``, or any error message.
    """

    def __init__(
        self,
        model: str = OPENAI_DEFAULT_MODEL,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        dimensions: int | None = None,
        timeout: float = 30.0,
        max_retries: int = 1,
        batch_size: int = 128,
    ) -> None:
        super().__init__()
        self.model = model
        self.base_url = base_url or None
        self._api_key = api_key or ""
        self.dimensions = dimensions
        self.timeout = timeout
        self.max_retries = max_retries
        self.batch_size = batch_size
        host = self.base_url or OPENAI_BASE_URL
        dims = f":{dimensions}" if dimensions else ""
        self.model_id = f"openai:{host}:{model}{dims}"
        self.label = f"OpenAI-compatible: {model} @ {host}"

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model={self.model!r}, base_url={self.base_url!r})"

    @property
    def needs_loading(self) -> bool:
        """False: the client is built on the first request (a cached document needs none)."""
        return False

    def _load(self, progress: LoadProgress | None) -> object:
        return openai_client(
            self._api_key, self.base_url, self.timeout, self.max_retries, EmbeddingError
        )

    def _dim(self, model: object) -> int:
        return self.dimensions or 0

    def _encode(self, model, batch: list[str]) -> np.ndarray:
        openai, client = model
        kwargs: dict[str, object] = {"model": self.model, "input": batch}
        if self.dimensions:
            kwargs["dimensions"] = self.dimensions
        try:
            response = client.embeddings.create(**kwargs)
        except openai.AuthenticationError as exc:
            raise EmbeddingError("The endpoint refused the API key (401 Unauthorized).") from exc
        except openai.PermissionDeniedError as exc:
            raise EmbeddingError("The endpoint denied access to this model (403).") from exc
        except openai.RateLimitError as exc:
            raise EmbeddingError(
                "The endpoint is rate-limiting requests (429); wait and retry."
            ) from exc
        except openai.APITimeoutError as exc:
            raise EmbeddingError(f"The endpoint did not answer within {self.timeout:g} s.") from exc
        except openai.APIConnectionError as exc:
            raise EmbeddingError(
                "Could not connect to the embedding endpoint; check base_url."
            ) from exc
        except openai.APIStatusError as exc:
            raise EmbeddingError(
                scrub_secret(f"The endpoint answered HTTP {exc.status_code}.", self._api_key)
            ) from exc
        except (openai.APIResponseValidationError, ValueError, TypeError, KeyError) as exc:
            raise EmbeddingError("The endpoint's answer is not valid embeddings JSON.") from exc
        try:
            rows = sorted(response.data, key=lambda d: d.index)
            vecs = [list(map(float, r.embedding)) for r in rows]
        except (AttributeError, TypeError, ValueError) as exc:
            raise EmbeddingError("The endpoint's answer is not valid embeddings JSON.") from exc
        if len(vecs) != len(batch):
            raise EmbeddingError(
                f"The endpoint returned {len(vecs)} embeddings for {len(batch)} texts."
            )
        dims = {len(v) for v in vecs}
        if len(dims) != 1 or 0 in dims:
            raise EmbeddingError(f"The endpoint returned embeddings of mixed sizes {sorted(dims)}.")
        if self.dimensions and dims != {self.dimensions}:
            raise EmbeddingError(
                f"The endpoint returned {dims.pop()}-d embeddings; {self.dimensions}-d were asked."
            )
        return np.asarray(vecs, dtype=np.float32)


def _build(
    spec: str, *, base_url: str | None = None, api_key: str | None = None, **_: object
) -> Embedder:
    model = spec.removeprefix("openai:").strip() or OPENAI_DEFAULT_MODEL
    return OpenAIEmbedder(model, base_url=base_url, api_key=api_key)


OPENAI = EmbedderKind(
    "openai",
    "openai:MODEL",
    lambda spec: spec.startswith("openai:"),
    _build,
    name="OpenAI-compatible endpoint",
    label="OpenAI-compatible embeddings endpoint",
)
"""``openai:MODEL`` (blank: :data:`OPENAI_DEFAULT_MODEL`) at the caller's base URL and key."""
