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
