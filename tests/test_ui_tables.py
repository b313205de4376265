"""ui.tables outside a page: the presenter-mode HTML table (escaping, labels, formats, caps)."""

from __future__ import annotations

import math
import re

import pandas as pd
import pyarrow as pa
import streamlit as st

from scar_viz.common.fmt import EMPTY_CELL
from ui.presenter import MIN_PX
from ui.tables import as_frame, dash_missing, grid_table, table_html


def _cells(markup: str, tag: str = "td") -> list[str]:
    return re.findall(rf"<{tag}(?:\s[^>]*)?>(.*?)</{tag}>", markup)


def test_document_text_is_escaped_in_headers_and_cells():
    frame = pd.DataFrame({"<b>col</b>": ['<img src=x onerror="alert(1)">', "a & b"]})
    markup = table_html(frame)
    assert "<img" not in markup and "<b>col" not in markup
    assert _cells(markup) == ["&lt;img src=x onerror=&quot;alert(1)&quot;&gt;", "a &amp; b"]
    assert _cells(markup, "th") == ["&lt;b&gt;col&lt;/b&gt;"]


def test_column_config_labels_formats_and_hidden_columns_are_kept():
    frame = pd.DataFrame({"cos": [0.12345, 0.5], "pos": [41.6, 7.0], "n": [3, 12], "gone": [1, 2]})
    config = {
        "cos": st.column_config.NumberColumn("cos(q,c)", format="%.3f"),
        "pos": st.column_config.NumberColumn("position", format="%.0f %%"),
        "gone": None,
    }
    markup = table_html(frame, config)
    assert _cells(markup, "th") == ["cos(q,c)", "position", "n"]
    assert _cells(markup) == ["0.123", "42 %", "3", "0.500", "7 %", "12"]
    assert 'class="sv-num"' in markup


def test_missing_values_are_dashes_and_text_columns_left_aligned():
    frame = pd.DataFrame({"note": ["long " * 40, None], "x": [math.nan, 2.5]})
    markup = table_html(frame)
    assert _cells(markup)[1:3] == ["—", "—"] and _cells(markup)[3].endswith("2.5")
    assert f"font-size: {MIN_PX + 2}px" in markup and "overflow-wrap: normal" in markup
    assert "white-space: normal" in markup  # long notes wrap at spaces, never cut
    assert "anywhere" not in markup  # nor inside a word (the box scrolls instead)


def test_index_shown_unless_hidden_and_rows_capped_with_a_note():
    frame = pd.DataFrame({"v": range(5)}, index=list("abcde"))
    assert "<th>c</th>" in table_html(frame, hide_index=False)
    assert "<th>c</th>" not in table_html(frame)
    capped = table_html(frame, max_rows=2)
    assert len(_cells(capped)) == 2 and "The first 2 of 5 rows" in capped


def test_a_format_a_value_does_not_fit_leaves_it_readable():
    frame = pd.DataFrame({"v": [1, 2]}).astype(object)
    frame.loc[1, "v"] = "—"
    assert _cells(table_html(frame, {"v": st.column_config.NumberColumn(format="%.2f")})) == [
        "1.00",
        "—",
    ]


def test_an_empty_subset_shows_a_dash_in_the_grid_not_zero():
    fmt = st.column_config.NumberColumn(format="%.3f")
    frame = pd.DataFrame({"subset": ["all", "scattered"], "recall": [0.5, None]})
    shown, config = dash_missing(frame, {"recall": fmt})
    assert list(shown["recall"]) == ["0.500", "—"]
    assert frame["recall"].isna().iloc[1]  # the caller's frame is left alone
    full = pd.DataFrame({"recall": [0.5, 0.25]})
    assert dash_missing(full, {"recall": fmt})[0] is full


def test_by_file_columns_are_formatted_by_their_metric_not_their_label():
    from ui.by_file import NUM0, NUM2, NUM3, _format

    assert _format("recall · tokens 600/60 tokens") is NUM3  # a recall, under the tokens chunker
    assert _format("chunks · tokens 600/60 tokens") is NUM2
    assert _format("topk recall") is NUM3 and _format("scar chunks") is NUM2
    assert _format("context tokens") is NUM0
    assert _format("file") is None and _format("queries") is None


def test_grid_table_is_arrow_with_every_rows_columns_or_pandas_when_arrow_cannot_type_one():
    table = grid_table([{"chunk": 3, "cos": 0.5}, {"chunk": 4, "cos": 0.25, "blocked by": "c"}])
    assert isinstance(table, pa.Table)
    assert table.column_names == ["chunk", "cos", "blocked by"]
    assert table.column("blocked by").to_pylist() == [None, "c"]
    assert as_frame(table)["cos"].tolist() == [0.5, 0.25]
    columns = grid_table({"file": ["a.md", "b.md"], "chunks": [2, 7]})
    assert isinstance(columns, pa.Table) and columns.num_rows == 2
    mixed = grid_table([{"value": 1.5}, {"value": "—"}])  # numbers and text in one column
    assert isinstance(mixed, pd.DataFrame) and mixed["value"].tolist() == [1.5, "—"]


def test_an_arrow_table_with_a_missing_formatted_number_gets_dashes_too():
    config = {"recall": st.column_config.NumberColumn(format="%.3f")}
    table = grid_table([{"policy": "scar", "recall": 0.5}, {"policy": "topk", "recall": None}])
    data, shown = dash_missing(table, config)
    assert isinstance(data, pd.DataFrame)
    assert data["recall"].tolist() == ["0.500", EMPTY_CELL]
    whole = grid_table([{"policy": "scar", "recall": 0.5}])
    assert dash_missing(whole, config)[0] is whole  # nothing missing: sent as it is


def test_a_localized_number_column_is_thousands_separated_in_the_large_table():
    config = {"characters": st.column_config.NumberColumn("characters", format="localized")}
    html_table = table_html(pd.DataFrame({"characters": [3113, 1_250_000]}), config)
    assert '<td class="sv-num">3,113</td>' in html_table
    assert "1,250,000" in html_table


def test_titles_put_the_whole_text_on_hover_escaped():
    whole = ['docs/very/deep/"quoted"/<b>bold</b>.md', "b.md"]
    frame = pd.DataFrame({"file": ["docs/…/<b>bold</b>.md", "b.md"], "chunks": [3, 4]})
    markup = table_html(frame, titles={"file": whole})
    titles = re.findall(r'<td title="([^"]*)">', markup)
    assert titles == [
        "docs/very/deep/&quot;quoted&quot;/&lt;b&gt;bold&lt;/b&gt;.md",
        "b.md",
    ]
    assert "<b>" not in markup  # neither the cell nor its title lets markup through
    assert 'title="' not in table_html(frame)  # no titles unless asked
