"""Reading the app's escaped HTML messages (``ui.alerts.alert``) in AppTest."""

from __future__ import annotations

import html
import re


def alerts(node, kind: str | None = None) -> list[str]:
    """Texts of the ``alert`` boxes under ``node`` (an AppTest or its sidebar), unescaped."""
    out = []
    for element in node.get("html"):
        body = element.proto.body
        m = re.search(r'data-testid="sv-alert-(\w+)"[^>]*>(.*)</div>$', body, re.S)
        if m and (kind is None or m.group(1) == kind):
            out.append(html.unescape(m.group(2)))
    return out


def stash_queries(at, doc_text: str, name: str, data: bytes | str, source: str = "upload") -> None:
    """Put a query set into an AppTest session as ``ui.queryset.stash_query_set`` does (an
    upload's bytes, or the session's / an LLM's JSON Lines text) and make it the active one."""
    from scar_viz.embeddings import text_key

    store = dict(at.session_state["qsets"]) if "qsets" in at.session_state else {}
    store.setdefault(text_key(doc_text), {})[source] = (name, data)
    at.session_state["qsets"] = store
    at.session_state["qs_pick"] = source
