"""``python -m scar_viz recommend``: the JSON shape, and ``eval`` on the check queries alone
with the tuned k, λ, τ gives the check figures exactly."""

from __future__ import annotations

import json

from scar_viz.cli.main import main


def _json(capsys, *argv) -> dict:
    assert main([*map(str, argv), "--model", "hash", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_eval_on_the_check_ids_reproduces_the_check_figures(sample_files, tmp_path, capsys):
    doc, queries = sample_files
    out = _json(capsys, "recommend", doc, queries, "--boot", "300")
    for key in ("k", "lam", "tau", "check_ids", "check", "token_saving", "equal_budget"):
        assert key in out
    assert out["verdict"] in ("keep the window", "use SCAR", "other")
    assert out["token_saving"]["ci_low"] <= out["token_saving"]["ci_high"]
    assert set(out["equal_budget"]) >= {"on_front", "beaten_by"}
    rows = {}
    for line in queries.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rows[json.loads(line)["id"]] = line
    check = tmp_path / "check.jsonl"
    check.write_text("\n".join(rows[i] for i in out["check_ids"]) + "\n", encoding="utf-8")
    ev = _json(
        capsys,
        "eval",
        doc,
        check,
        "--policies",
        "window1,scar",
        "--k",
        out["k"],
        "--lam",
        out["lam"],
        "--tau",
        out["tau"],
        "--boot",
        "0",
    )
    assert ev["n_queries"] == len(out["check_ids"])
    for name in ("scar", "window1"):
        got = ev["policies"][name]["all"]
        want = out["check"][name]
        assert {m: got[m] for m in ("recall", "mean_chunks", "mean_tokens")} == want


def test_text_output_and_a_bad_option(sample_files, capsys):
    doc, queries = sample_files
    assert main(["recommend", str(doc), str(queries), "--model", "hash", "--boot", "200"]) == 0
    text = capsys.readouterr().out
    assert "window ±1" in text and ("Keep the window" in text or "Use " in text)
    assert main(["recommend", str(doc), str(queries), "--model", "hash", "--boot", "0"]) == 1
    assert "--boot" in capsys.readouterr().err
