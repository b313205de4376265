"""ui/serve.py's page paths and the script that names the server's base on a page's link."""

from __future__ import annotations

import re
from pathlib import Path

from ui.serve import base_script, page_paths

APP = Path(__file__).resolve().parent.parent / "app.py"


def test_the_page_paths_are_those_app_py_declares():
    declared = set(re.findall(r'url_path="([^"]+)"', APP.read_text(encoding="utf-8")))
    assert set(page_paths(APP)) == declared


def test_the_base_script_lists_the_pages_and_names_the_parent_as_base():
    script = base_script(["compare", "fit-gate"])
    assert script.startswith("<script>") and script.endswith("</script>")
    assert '["compare", "fit-gate"]' in script
    assert "BACKEND_BASE_URL" in script and "7074" in script
