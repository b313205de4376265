"""Every table of the app through one call: :func:`show_table`.

``st.dataframe`` draws its grid on a canvas at about 14 px whatever the page's CSS says, too
small for the back row. In presenter mode :func:`show_table` draws the same frame as an HTML
table instead (every cell escaped, type at presenter mode's minimum, long text wrapped so no
cell is cut), keeping what the ``column_config`` says about labels, hidden columns and number
formats. Otherwise it is ``st.dataframe`` with the same arguments.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from numbers import Number

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st

from scar_viz.common.fmt import EMPTY_CELL
from ui.presenter import MIN_PX, presenting

LOCALIZED = "localized"
"""``NumberColumn(format="localized")``: the number with its thousands separated."""
MAX_ROWS = 300
"""Rows an HTML table shows at most (the grid scrolls; the page would grow without bound)."""
MAX_HEIGHT_PX = 720
"""An HTML table taller than this scrolls inside its box, its header kept in view."""

TABLE_CSS = f"""
.sv-table-box {{ max-height: {MAX_HEIGHT_PX}px; overflow: auto; margin: 0 0 0.6rem; }}
table.sv-table {{ border-collapse: collapse; width: 100%; color: #000; background: #fff; }}
table.sv-table :is(th, td) {{
  font-size: {MIN_PX + 2}px !important; line-height: 1.35; padding: 6px 10px;
  border: 1px solid #bbb; text-align: left; vertical-align: top; background: #fff;
  white-space: normal; overflow-wrap: normal; word-break: normal; hyphens: manual;
}}
table.sv-table th {{ background: #eef1f5; position: sticky; top: 0; font-weight: 600; }}
table.sv-table td.sv-num {{ text-align: right; white-space: nowrap;
  font-variant-numeric: tabular-nums; }}
.sv-table-note {{ font-size: {MIN_PX}px !important; color: #111; }}
"""


def grid_table(data: Sequence[Mapping[str, object]] | Mapping[str, Sequence]) -> object:
    """Rows (dicts) or columns (a dict of sequences) as the Arrow table ``st.dataframe``
    sends, built without pandas: the grid converts a pandas frame to Arrow on every run
    (about 4 ms for a few rows, under cProfile, three times per λ release in the Explorer).
    Columns are the union of the rows' keys, in first-seen order. A pandas frame when Arrow
    cannot type a column (numbers and text mixed), as the grid would then convert it."""
    if isinstance(data, Mapping):
        columns = {  # arrays go to Arrow as they are (no Python object per value)
            name: values if isinstance(values, np.ndarray) else list(values)
            for name, values in data.items()
        }
    else:
        names = dict.fromkeys(name for row in data for name in row)
        columns = {name: [row.get(name) for row in data] for name in names}
    try:
        return pa.Table.from_pydict(columns)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return pd.DataFrame(columns)


def show_table(
    data,
    *,
    column_config: Mapping[str, object] | None = None,
    titles: Mapping[str, Sequence[str]] | None = None,
    **kw,
):
    """``data`` as a table: ``st.dataframe(data, column_config=..., **kw)``, or in presenter
    mode an HTML table at :data:`ui.presenter.MIN_PX` or more (see :func:`table_html`), whose
    cells of a column named in ``titles`` carry the given text on hover (the grid has no
    per-cell hover: ``titles`` is for the HTML table only).

    A call that needs the grid's selection events (``on_select``) must call ``st.dataframe``
    itself: the HTML table has none.

    Returns:
        What ``st.dataframe`` returns, or None for the HTML table.
    """
    if not presenting():
        data, column_config = dash_missing(data, column_config)
        return st.dataframe(data, column_config=column_config, **kw)
    frame = as_frame(data)
    hide = kw.get("hide_index")
    if hide is None:  # st.dataframe's default: a plain row count is not shown
        hide = isinstance(frame.index, pd.RangeIndex)
    st.html(table_html(frame, column_config, hide_index=bool(hide), titles=titles))
    return None


def table_html(
    frame: pd.DataFrame,
    column_config: Mapping[str, object] | None = None,
    *,
    hide_index: bool = True,
    max_rows: int = MAX_ROWS,
    titles: Mapping[str, Sequence[str]] | None = None,
) -> str:
    """``frame`` as an HTML table whose every header and cell is escaped.

    Args:
        frame: the table.
        column_config: ``st.column_config`` values by column name: a column mapped to None
            is left out; a ``label`` renames its header; a printf ``format`` (``"%.3f"``,
            ``"%.0f %%"``) formats its numbers. Other settings (widths, help) are the grid's.
        hide_index: leave the frame's index out.
        max_rows: rows shown at most; a note under the table says how many were left out.
        titles: per column, row by row, the text a cell shows on hover (its ``title``,
            escaped): e.g. a whole path beside a cell that shows it cut in the middle.
    """
    config = dict(column_config or {})
    columns = [c for c in frame.columns if not (c in config and config[c] is None)]
    head = [] if hide_index else [""]
    head += [str(_setting(config.get(c), "label") or c) for c in columns]
    shown = frame.head(max_rows)
    values = [shown[c].tolist() for c in columns]  # by column: an int stays an int
    body = []
    for i, index in enumerate(shown.index):
        cells = [] if hide_index else [f"<th>{html.escape(str(index))}</th>"]
        for c, column in zip(columns, values, strict=True):
            value = column[i]
            text = _cell_text(value, _format_of(config.get(c)))
            numeric = isinstance(value, Number) and not isinstance(value, bool)
            cls = ' class="sv-num"' if numeric else ""
            if titles and c in titles:
                cls += f' title="{html.escape(str(titles[c][i]), quote=True)}"'
            cells.append(f"<td{cls}>{html.escape(text)}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    header = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    note = ""
    if len(frame) > max_rows:
        note = (
            f'<p class="sv-table-note">The first {max_rows:,} of {len(frame):,} rows; '
            "turn presenter mode off to scroll them all.</p>"
        )
    return (
        f"<style>{TABLE_CSS}</style>"
        f'<div class="sv-table-box"><table class="sv-table"><thead><tr>{header}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>{note}"
    )


def dash_missing(
    data, column_config: Mapping[str, object] | None
) -> tuple[object, Mapping[str, object] | None]:
    """(data, column_config) where a formatted number column holding a missing value (a
    subset without queries has no mean) becomes text, every number in its format and the
    missing ones :data:`~scar_viz.common.fmt.EMPTY_CELL`; other tables come back unchanged."""
    if not column_config or not isinstance(data, pd.DataFrame | pa.Table):
        return data, column_config
    if isinstance(data, pa.Table):
        formatted = [n for n in column_config if _format_of(column_config[n])]
        if not any(data.column(n).null_count for n in formatted if n in data.column_names):
            return data, column_config
        data = data.to_pandas()
    config = dict(column_config)
    frame = data
    for name, setting in column_config.items():
        fmt = _format_of(setting)
        if fmt is None or name not in frame.columns or not frame[name].isna().any():
            continue
        if frame is data:
            frame = data.copy()
        frame[name] = [_cell_text(v, fmt) for v in frame[name]]
        config[name] = st.column_config.TextColumn(alignment="right")
    return frame, config


def as_frame(data) -> pd.DataFrame:
    """``data`` (a pandas frame, an Arrow table from :func:`grid_table`, rows or columns) as
    a pandas frame."""
    if isinstance(data, pd.DataFrame):
        return data
    if isinstance(data, pa.Table):
        return data.to_pandas()
    return pd.DataFrame(data)


def _setting(config: object, name: str) -> object:
    return config.get(name) if isinstance(config, Mapping) else None


def _format_of(config: object) -> str | None:
    type_config = _setting(config, "type_config")
    fmt = type_config.get("format") if isinstance(type_config, Mapping) else None
    if fmt == LOCALIZED:
        return fmt
    return fmt if isinstance(fmt, str) and "%" in fmt else None


def _cell_text(value: object, fmt: str | None) -> str:
    """A cell as the grid would show it: :data:`~scar_viz.common.fmt.EMPTY_CELL` for a missing
    value, a printf format applied to a number (a format the number does not fit leaves it as Python
    prints it)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return EMPTY_CELL
    if fmt == LOCALIZED and isinstance(value, Number) and not isinstance(value, bool):
        # the grid's "localized": thousands separated, as en-US shows them (a whole number
        # held as a float, in a column with a missing value, shown as the integer it is)
        whole = isinstance(value, float) and value.is_integer()
        return f"{value:,.0f}" if whole else f"{value:,}"
    if fmt and isinstance(value, Number) and not isinstance(value, bool):
        try:
            return fmt % value
        except (TypeError, ValueError):
            pass
    if isinstance(value, float):
        return f"{value:.0f}" if abs(value) >= 1e6 else f"{value:.6g}"
    return str(value)


def show_notes(notes: Sequence[tuple[str, str]], title: str = "Notes") -> None:
    """(row, note) pairs listed in full under a table, each escaped and wrapped: for notes
    too long for a table column at any width."""
    if not notes:
        return
    items = "".join(
        f'<li style="margin:0.2rem 0"><b>{html.escape(row)}</b>: {html.escape(note)}</li>'
        for row, note in notes
    )
    st.html(
        f'<div data-testid="sv-table-notes" style="overflow-wrap:anywhere">'
        f'<b>{html.escape(title)}</b><ul style="margin:0.3rem 0 0.6rem 1.2rem;padding:0">'
        f"{items}</ul></div>"
    )
