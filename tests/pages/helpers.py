"""AppTest helpers: opening a page, reading the app's escaped HTML messages
(``ui.alerts.alert``), stashing a query set."""

from __future__ import annotations

import ast
import functools
import html
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from scar_viz.documents.reading import Document
from scar_viz.embeddings import text_key

APP = "../../app.py"
"""The entry point, relative to this folder (AppTest resolves it against the calling file)."""

APP_FILE = Path(__file__).resolve().parents[2] / "app.py"


@functools.cache
def url_paths() -> dict[str, str]:
    """{page file, e.g. ``"pages/budget.py"``: its ``url_path``} as ``app.py`` declares its
    ``st.Page`` entries (read from the source, not run)."""
    out = {}
    for node in ast.walk(ast.parse(APP_FILE.read_text(encoding="utf-8"))):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "Page"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            continue
        url = next((k.value.value for k in node.keywords if k.arg == "url_path"), None)
        out[node.args[0].value] = url or Path(node.args[0].value).stem
    return out


def opens_directly(page: str) -> bool:
    """Whether AppTest's first run can land on ``page`` itself, as a link to it does.

    Before the first run ``AppTest.switch_page`` can name a page only by its file name, and
    Streamlit knows an ``st.Page`` by its ``url_path``: the two agree when the app declares
    the page under its file's name (``pages/budget.py`` at ``budget``, not ``pages/fit_gate.py``
    at ``fit-gate``)."""
    return url_paths().get(page) == Path(page).stem


def open_page(
    page: str, timeout: float, app: AppTest | None = None, upload: Document | None = None
) -> AppTest:
    """Open ``page`` (e.g. ``"pages/budget.py"``) in a new session and run it, checking that
    nothing raised: the first run is the page's own, as when a visitor follows a link to it
    (the Explorer first, then a switch, where AppTest cannot open the page directly:
    :func:`opens_directly`). With ``upload``, that document is put in the session first and
    then picked in the document selector."""
    if app is None:
        app = AppTest.from_file(APP, default_timeout=timeout)
    if upload is not None:
        app.session_state["uploaded"] = (text_key(upload.text), upload)
    if not opens_directly(page):
        app.run()
    app.switch_page(page)
    app.run()
    assert not app.exception, app.exception
    if upload is not None:
        app.selectbox(key="doc").set_value("upload").run()
    return app


def go_to(at: AppTest, page: str) -> AppTest:
    """Switch ``at`` to ``page`` (e.g. ``"pages/sweep.py"``) and run it as the browser's page
    change does, checking that nothing raised.

    A browser that follows a page link sends only the widget states of the main script's
    elements (``app.py`` draws none), so Streamlit finds the previous page's widgets stale
    at the page change and carries a bound widget's value onto its key before the new page
    runs. ``AppTest.switch_page`` followed by ``run()`` sends every widget of the previous
    page instead: they count as alive at the page change, and the new page's first run
    reads its widgets' defaults (an element id includes its page), the second one the
    carried values (docs/testing.md, "A page change under AppTest"). So the run is started
    with no widget states, by AppTest's own runner (``AppTest._run``, the method ``run()``
    calls with the previous page's states)."""
    from streamlit.proto.WidgetStates_pb2 import WidgetStates

    at.switch_page(page)
    at._run(WidgetStates())
    assert not at.exception, at.exception
    return at


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
    store = dict(at.session_state["qsets"]) if "qsets" in at.session_state else {}
    store.setdefault(text_key(doc_text), {})[source] = (name, data)
    at.session_state["qsets"] = store
    at.session_state["qs_pick"] = source


def open_corpus(page: str, timeout: float, **state: object) -> AppTest:
    """:func:`open_page` on the built-in sample corpus (``?doc=kestrel``), with ``state`` put
    in the session first."""
    app = AppTest.from_file(APP, default_timeout=timeout)
    app.query_params["doc"] = "kestrel"
    for key, value in state.items():
        app.session_state[key] = value
    return open_page(page, timeout, app)


def open_index(path: str, page: str | None = None, timeout: float = 120) -> AppTest:
    """The app (on ``page`` when given) with the index at ``path``, under the root, opened in
    the sidebar."""
    from ui import store_open

    at = AppTest.from_file(APP, default_timeout=timeout)
    at.run()
    if page:
        at.switch_page(page)
        at.run()
    at.selectbox(key="doc").set_value(store_open.STORE_CHOICE).run()
    assert not at.exception, at.exception
    at.text_input(key="store_path").set_value(path).run()
    assert not at.exception, at.exception
    return at


def by_file(at: AppTest):
    """The per-file breakdown's table (the one table with a ``file`` column), or None."""
    return next((df.value for df in at.dataframe if "file" in df.value.columns), None)


def kestrel_queries() -> int:
    """How many labelled queries the sample corpus has."""
    from scar_viz.documents import samples
    from scar_viz.queries.reading import parse_queries

    return len(
        parse_queries(
            samples.sample_queries_text("kestrel"), samples.load_sample("kestrel")
        ).queries
    )


def assert_corpus_files(frame, n_queries: int | None = None) -> None:
    """``frame`` lists files of the sample corpus (and queries whose evidence is in several),
    at least two of them, with ``n_queries`` queries in all (default: every labelled query of
    the sample, :func:`kestrel_queries`)."""
    from scar_viz.documents import samples
    from scar_viz.evaluation.by_file import SEVERAL_FILES

    assert frame is not None, "no table by file"
    paths = {p.path for p in samples.load_sample("kestrel").parts}
    files = set(frame["file"])
    assert files <= paths | {SEVERAL_FILES} and len(files & paths) >= 2, files
    per_file = frame.drop_duplicates("file")["queries"]
    assert per_file.sum() == (kestrel_queries() if n_queries is None else n_queries)


def use_endpoint(at: AppTest, slot: str = "chat", place: str = "sidebar") -> None:
    """Answer *Use it* to the endpoint a link proposed (``ui.consent``), as a visitor does."""
    at.button(key=f"endpoint_{slot}_{place}_use").click().run()
    assert not at.exception, at.exception
