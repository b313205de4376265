"""A verdict that travels, in the browser: on a generated corpus (the sample cut into one file a
chapter, its labelled queries naming their file) whose verdict is a learned gate, *Apply*, and
every page runs the setting of the settings file the page downloads (the code snippets beside
the verdict, run as shown, select what ``select --settings`` of it selects): the Evaluation lab's
learned row, the λ×τ sweep's learned point and Equal budget's learned point at the applied k
are ``eval --settings`` of that file on the same corpus and queries, and Compare's learned row
and the Explorer's selection are ``select --settings`` of it on the same question; *Fit a gate*
names that gate as the one in use, and the Explorer's address opened in a browser context of
its own (the corpus uploaded again: a link cannot carry an upload) runs the same gate.

The question is one where the downloaded gate admits a neighbour and the default learned gate
at the same p selects otherwise, so a page running the default gate in its place fails here.
"""

from __future__ import annotations

import io
import json
import re
import shlex
import shutil
import zipfile
from pathlib import Path

import pytest

from scar_viz.evaluation.settings import load_settings
from scar_viz.scoring.learned import default_gate
from scar_viz.views.gate_link import gate_digest
from scar_viz.views.snippets import QUESTION, SETTINGS_FILE
from scripts.browser_actions import ON_THE_UPLOADER, ask, context_chunks, download_text, go
from scripts.live_app import settle, wait_for_app_run
from tests.browser.test_corpus_view import ZIP_INPUT
from tests.browser.test_query_sets import upload_queries
from tests.browser.test_share import slider_value
from tests.browser.test_verdict_browser import address, apply_verdict, carried, read_verdict
from tests.integrations.helpers import SAMPLE_DOC, SAMPLE_QUERIES, cli_json, require
from tests.views.test_snippets import run_snippet, selected_chunks

BUDGET = 300
"""Mean context tokens a query: the generated corpus's verdict there is the learned gate with
lexical features on BM25 (``recommend --budget 250 … 400`` all choose a learned gate on it
under the hashing model), so neither the default retriever nor the default gate is it."""
ZIP_NAME = "ferry.zip"
QUERIES_NAME = "ferry.queries.jsonl"
PRINTED = 1e-6
"""``eval --json`` and the lab's JSON download write 6 decimals: the two may differ by one unit
of the last one after rounding."""
SHOWN = 5e-4 + PRINTED
"""A table cell shows 3 decimals (``NUM3``): half a unit of the third. (The grid's accessible
cells, which the test reads, hold the unrounded number today; the tolerance is the printed
one so that a grid which reads out what it draws still passes.)"""


def chapters(folder: Path) -> tuple[Path, Path]:
    """The sample cut at its chapters (``## n. Title``) into one file each, and its labelled
    queries, each naming the file its evidence lies in (offsets left out: they were the whole
    document's).

    Returns:
        (the corpus as a zip, the query file).
    """
    parts = re.split(r"(?m)^(?=## )", SAMPLE_DOC.read_text(encoding="utf-8"))
    files: dict[str, str] = {}
    for part in parts:
        m = re.match(r"## (\d+)\. (\w+)", part)
        files[f"ch{m.group(1)}_{m.group(2).lower()}.md" if m else "title.md"] = part
    lines = []
    for line in SAMPLE_QUERIES.read_text(encoding="utf-8").splitlines():
        query = json.loads(line)
        texts = [e["text"] for e in query["evidence"]]
        holding = [name for name, body in files.items() if all(t in body for t in texts)]
        assert len(holding) == 1, (query["id"], holding)
        query["doc"] = holding[0]
        query["evidence"] = [{"text": t} for t in texts]
        lines.append(json.dumps(query, ensure_ascii=False))
    corpus = folder / ZIP_NAME
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, body in files.items():
            z.writestr(name, body)
    corpus.write_bytes(buffer.getvalue())
    queries = folder / QUERIES_NAME
    queries.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return corpus, queries


def select(corpus: Path, question: str, *options: str) -> dict:
    """``select CORPUS --query QUESTION OPTIONS`` under the hashing model, as JSON."""
    return cli_json(
        "select", str(corpus), "--query", question, "--model", "hash", "--no-cache", *options
    )


def default_gate_at(chosen) -> tuple[str, ...]:
    """The options that run the default learned gate at ``chosen``'s retriever, k, r and p."""
    return (
        "--policy", "learned", "--retriever", chosen.retriever, "--k", str(chosen.k),
        "--radius", str(chosen.radius), "--p", str(chosen.p),
    )  # fmt: skip


def a_telling_question(corpus: Path, queries: Path, settings: Path, chosen) -> tuple[str, dict]:
    """The first labelled question where the downloaded setting admits a neighbour and the
    default learned gate at the same retriever, k, r and p selects other chunks; with
    ``select --settings``'s answer to it."""
    for line in queries.read_text(encoding="utf-8").splitlines():
        question = json.loads(line)["query"]
        want = select(corpus, question, "--settings", str(settings))
        if not want["admitted"]:
            continue
        fallback = select(corpus, question, *default_gate_at(chosen))
        if fallback["selected"] != want["selected"]:
            return question, want
    pytest.fail("no labelled question tells the downloaded gate from the default one")


def plotly_traces(chart) -> list[dict]:
    """The traces a drawn plotly chart holds (``locator`` of its ``.js-plotly-plot``), with
    x, y and customdata as plain lists (plotly.js decodes the figure's typed arrays there)."""
    return chart.evaluate(
        """p => p._fullData.map(t => ({
            name: t.name,
            x: Array.from(t.x || []),
            y: Array.from(t.y || []),
            customdata: t.customdata ? Array.from(t.customdata, c => Array.from(c)) : null,
        }))"""
    )


def grid_rows(page, column: str) -> list[dict[str, str]]:
    """The rows of the ``st.dataframe`` with a column named ``column``, as {column: the cell's
    text}. The grid draws on a canvas and keeps an accessible table of the rows in view beside
    it, each row numbered (``aria-rowindex``): the grid is scrolled from top to bottom and every
    row read once."""
    header = page.locator("[role=columnheader]").filter(
        has_text=re.compile(rf"^\s*{re.escape(column)}\s*$")
    )
    grid = page.get_by_test_id("stDataFrame").filter(has=header)
    grid.first.wait_for(timeout=60_000)
    grid = grid.first
    grid.scroll_into_view_if_needed()
    headers = grid.locator("[role=columnheader]").all_inner_texts()
    rows: dict[int, dict[str, str]] = {}
    scroller = "e => e.querySelector('.dvn-scroller')"
    height = grid.evaluate(f"e => ({scroller})(e).scrollHeight")
    top = 0
    while True:
        grid.evaluate(f"(e, top) => {{ ({scroller})(e).scrollTop = top; }}", top)
        settle(page)
        for row in grid.locator("[role=row]").all():
            cells = row.locator("[role=gridcell]").all_inner_texts()
            if len(cells) == len(headers):
                rows[int(row.get_attribute("aria-rowindex"))] = dict(
                    zip(headers, cells, strict=True)
                )
        view = grid.evaluate(f"e => ({scroller})(e).clientHeight")
        if top + view >= height:
            return [rows[i] for i in sorted(rows)]
        top += max(1, view // 2)


def learned_point(traces: list[dict], k: int | None = None) -> tuple[float, float]:
    """(x, y) of the trace named "learned" (at ``k``, read from its customdata [policy, k])."""
    learned = [t for t in traces if t["name"] == "learned"]
    assert len(learned) == 1, [t["name"] for t in traces]
    t = learned[0]
    at = 0 if k is None else [c[1] for c in t["customdata"]].index(k)
    return t["x"][at], t["y"][at]


def open_corpus_and_queries(page, url: str, corpus: Path, queries: Path) -> None:
    """Upload the corpus zip through the sidebar's uploader on a page opened at ``url`` on it,
    then the query file on the Evaluation lab."""
    page.goto(url)
    wait_for_app_run(page)
    zipped = page.locator(ZIP_INPUT)
    zipped.first.wait_for(state="attached", timeout=30_000)
    zipped.first.set_input_files(
        files=[{"name": ZIP_NAME, "mimeType": "application/zip", "buffer": corpus.read_bytes()}]
    )
    wait_for_app_run(page)
    settle(page, timeout_ms=120_000)  # the corpus drawn (and the link's question answered)
    if queries is not None:
        upload_queries(page, QUERIES_NAME, queries.read_text(encoding="utf-8"))


def check_the_snippets(page, tmp_path: Path, corpus: Path, queries: Path, settings: str) -> None:
    """The code box beside the verdict, as the page shows it (the command line's, LangChain's
    and LlamaIndex's snippets), run in a folder holding the corpus under the name the snippets
    give it, the query file and the settings download (``settings``, its text): each selects
    what ``select --settings`` of the download selects on the snippets' question."""
    work = tmp_path / "work"
    work.mkdir()
    (work / SETTINGS_FILE).write_text(settings, encoding="utf-8")
    box = page.get_by_test_id("stExpander").filter(has_text="Use it in your code")
    box.first.get_by_text("Use it in your code").click()
    codes = box.first.locator("[data-testid=stCode] code")
    codes.first.wait_for(state="attached", timeout=30_000)
    cli, langchain, llamaindex = codes.all_text_contents()
    select_line = cli.replace("\\\n", " ").splitlines()[1]
    document = shlex.split(select_line)[2]  # scar-viz select DOCUMENT --query …
    assert document == ZIP_NAME
    shutil.copy(corpus, work / document)
    shutil.copy(queries, work / "queries.jsonl")
    want = select(work / document, QUESTION, "--settings", str(work / SETTINGS_FILE))
    assert want["selected"] and want["selected_chunks"]

    out = run_snippet("Command line", "bash", cli, work)
    assert selected_chunks(out) == want["selected"]
    assert f"settings: {SETTINGS_FILE} (learned on " in out
    pairs = [(c["doc"], c["index"]) for c in want["selected_chunks"]]
    for title, code in (("LangChain", langchain), ("LlamaIndex", llamaindex)):
        rows = [line.split() for line in run_snippet(title, "python", code, work).splitlines()]
        assert sorted((r[0], int(r[1])) for r in rows) == sorted(pairs), title


def test_every_page_runs_the_downloaded_learned_gate(hash_app, chromium, tmp_path):
    require("langchain_core")  # the snippets beside the verdict run LangChain and LlamaIndex
    require("llama_index.core")
    corpus, queries = chapters(tmp_path)
    context = chromium.new_context(viewport={"width": 1400, "height": 1800})
    page = context.new_page()
    student = None
    try:
        url = f"{hash_app.url}/evaluate?{ON_THE_UPLOADER}&vbudget={BUDGET}"
        open_corpus_and_queries(page, url, corpus, queries)
        read_verdict(page)
        settings = tmp_path / "scar-viz-settings.json"
        settings.write_text(download_text(page, "Download settings (JSON)"), encoding="utf-8")
        chosen = load_settings(settings)
        assert chosen.policy == "learned" and chosen.retriever != "dense"
        digest = gate_digest(chosen.gate)
        assert digest != gate_digest(default_gate())
        check_the_snippets(page, tmp_path, corpus, queries, settings.read_text(encoding="utf-8"))
        apply_verdict(page)
        # the lab's address holds every field (retriever, k, r = 2, policy, p: none a default)
        carried(chosen, address(page), policy_too=True)

        run = ("eval", str(corpus), str(queries), "--model", "hash", "--no-cache", "--boot", "0")
        want = cli_json(*run, "--settings", str(settings))
        assert want["n_chunks"] > 40 and len(want["documents"]) == 10
        want = want["policies"]["learned"]["all"]
        # the default gate in its place reads otherwise: a page running it fails below
        fallback = cli_json(*run, "--policies", *default_gate_at(chosen)[1:])
        fallback = fallback["policies"]["learned"]["all"]
        assert abs(fallback["recall"] - want["recall"]) > SHOWN or (
            abs(fallback["mean_chunks"] - want["mean_chunks"]) > SHOWN
        )
        question, picked = a_telling_question(corpus, queries, settings, chosen)

        # the Evaluation lab: its learned row, as downloaded and as the table shows it
        lab = json.loads(download_text(page, "Download as JSON"))["policies"]["learned"]["all"]
        for field in ("recall", "mean_chunks", "mean_tokens"):
            assert lab[field] == pytest.approx(want[field], abs=PRINTED), field
        rows = [r for r in grid_rows(page, "subset") if r.get("policy") == "learned"]
        row = next(r for r in rows if r["subset"] == "all")
        shown_row = (float(row["recall"]), float(row["mean chunks"]))
        assert shown_row == pytest.approx((want["recall"], want["mean_chunks"]), abs=SHOWN)

        # the λ×τ sweep: the learned point on the Pareto chart
        go(page, "λ×τ sweep")
        chart = page.get_by_test_id("stPlotlyChart").filter(has_text="Pareto frontier").first
        chart.wait_for(timeout=60_000)
        x, y = learned_point(plotly_traces(chart.locator(".js-plotly-plot")))
        assert (x, y) == pytest.approx((want["mean_chunks"], want["recall"]), abs=PRINTED)

        # Equal budget: the learned point at the applied k
        go(page, "Equal budget")
        chart = page.locator(".st-key-budget_chart .js-plotly-plot")
        chart.wait_for(timeout=60_000)
        x, y = learned_point(plotly_traces(chart), chosen.k)
        assert (x, y) == pytest.approx((want["mean_tokens"], want["recall"]), abs=PRINTED)

        # Fit a gate: the gate in use is the download's
        go(page, "Fit a gate")
        page.get_by_text(
            re.compile(rf"^In use: the verdict's learned gate {digest} \(\d+ features\)")
        ).first.wait_for(timeout=60_000)

        # Compare, on a question where the gates differ: the learned row is select --settings
        go(page, "Compare policies")
        ask(page, question)
        settle(page)
        learned = [
            r for r in grid_rows(page, "jaccard vs scar") if r["label"].startswith("learned")
        ]
        assert len(learned) == 1, learned
        assert learned[0]["label"] == f"learned (p={chosen.p:g})"
        got = tuple(int(learned[0][c].replace(",", "")) for c in ("chunks", "characters", "tokens"))
        assert got == (len(picked["selected"]), picked["chars"], picked["tokens"])
        gate = page.get_by_text(re.compile(r"^Gate: the verdict's learned gate")).first
        gate.wait_for(state="attached", timeout=60_000)  # in the why? expander, closed
        assert gate.text_content().endswith(f", p = {chosen.p:g}.")

        # the Explorer: the same chunks, retrieved and admitted
        go(page, "Explorer")
        carried(chosen, address(page), policy_too=True)
        roles = context_chunks(page)
        assert sorted(roles) == picked["selected"]
        assert sorted(i for i, r in roles.items() if r.startswith("retrieved")) == sorted(
            picked["retrieved"]
        )
        link = page.url
        assert address(page).get("gate") == digest, page.url  # the page change kept its name

        # the Explorer's address in a browser context of its own, the corpus uploaded again
        student = chromium.new_context(viewport={"width": 1400, "height": 1800}, private=True)
        fresh = student.new_page()
        open_corpus_and_queries(fresh, link, corpus, None)
        assert address(fresh).get("q") == question  # the link asks it
        fresh.get_by_text(re.compile(rf"^Learned gate: .*learned gate {digest} ")).first.wait_for(
            state="attached", timeout=30_000
        )
        assert context_chunks(fresh) == roles
        assert slider_value(fresh, "k (retrieved)") == str(chosen.k)
        assert float(slider_value(fresh, "learned: p")) == pytest.approx(chosen.p)
        assert "set via the Session State API" not in hash_app.log()
        assert "Traceback" not in page.content() and "Traceback" not in fresh.content()
    finally:
        context.close()
        if student is not None:
            student.close()
