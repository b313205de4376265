"""What a shared deployment ships: no error details in the browser, and every limit of issue
"a shared server a visitor can trust" stated in the docs with the number the code uses."""

from __future__ import annotations

import tomllib

from scar_viz.cli.common import CLI_MAX_QUERIES
from scar_viz.common.bounded_json import MAX_DEPTH
from scar_viz.documents.gather import MAX_ARCHIVE_RATIO
from scar_viz.queries.reading import MAX_QUERIES
from scar_viz.runtime.models_root import ROOT_ENV, ROOT_SECRET
from tests.conftest import ROOT


def doc(name: str) -> str:
    return " ".join((ROOT / "docs" / name).read_text(encoding="utf-8").split())


def test_the_shipped_config_shows_no_error_details_and_the_docs_say_how_to():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["client"]["showErrorDetails"] == "none"
    assert "--client.showErrorDetails=full" in doc("deployment.md")


def test_the_limits_are_stated_with_the_codes_numbers():
    pages, cli, deployment = doc("pages.md"), doc("cli.md"), doc("deployment.md")
    assert f"at most **{MAX_QUERIES:,} queries** a file" in pages
    assert f"at most **{CLI_MAX_QUERIES:,} queries**" in cli and "--max-queries" in cli
    assert f"`MAX_ARCHIVE_RATIO`: **{MAX_ARCHIVE_RATIO}:1**" in pages
    assert f"{MAX_DEPTH} levels of nesting" in pages and f"{MAX_DEPTH} levels" in cli
    assert f"`{ROOT_ENV}`" in deployment and f"`{ROOT_SECRET}`" in deployment
    assert "Use it" in deployment and "unreadable: working without it" in pages
