"""Learn's material and session: the lesson's questions with their vectors (cached by content),
this session's predictions and the Reveal button's callback, and steps 1 and 4 drawn
(:mod:`scar_viz.teaching.lesson`, :mod:`scar_viz.teaching.rounds`)."""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from scar_viz.charts.context import fragment_part_html
from scar_viz.common import fmt
from scar_viz.documents.reading import Document
from scar_viz.pipeline import PreparedDoc
from scar_viz.queries.gold import GoldQuery
from scar_viz.scoring.params import DEFAULT_K
from scar_viz.teaching.lesson import (
    SCALE_ALPHA,
    SCALE_BETA,
    SCALE_INTRO,
    fragment_step,
    lesson_gold,
    pooled_decisions,
    scale_caption,
    scale_demo,
    scale_digits,
    scale_rows,
)
from scar_viz.teaching.rounds import Answers, RoundQuestion, round_questions
from ui import keys, state
from ui.cache import cached
from ui.queryset import query_vectors
from ui.state import URL
from ui.tables import show_table


@dataclass(frozen=True)
class LessonMaterial:
    """The sample's labelled questions' (Q, d) vectors, the rounds' questions, and the step-1
    question (``lesson``) with its vector."""

    vecs: np.ndarray
    questions: tuple[RoundQuestion, ...]
    lesson: GoldQuery
    qvec: np.ndarray


def lesson_material(
    key: tuple, sample: str, lesson_query: str, document: Document, prep: PreparedDoc, embedder
) -> LessonMaterial | None:
    """The lesson's material on ``sample`` under ``prep`` (``key``: its content), or None after
    a message (the questions could not be embedded)."""
    gold = cached((*key, "gold"), lambda: lesson_gold(sample, document, prep.chunks))
    vecs = query_vectors(embedder, gold)
    if vecs is None:
        return None
    questions = cached((*key, "questions"), lambda: round_questions(gold, vecs))
    lesson = next(g for g in gold if g.id == lesson_query)
    qvec = next(q.vector for q in questions if q.id == lesson_query)
    return LessonMaterial(vecs, questions, lesson, qvec)


def answers_for(key: tuple) -> Answers:
    """This session's predictions for the rounds of ``key`` (fresh when the rounds changed)."""
    saved = state.get(keys.L_ANSWERS)
    return saved[1] if saved and saved[0] == key else Answers()


def reveal(key: tuple, index: int, pool: tuple[int, ...]) -> None:
    """The Reveal button's callback: freeze round ``index``'s ticks (scored once)."""
    ticked = {c for c in pool if state.get(keys.guess(index, c))}
    state.put(keys.L_ANSWERS, (key, answers_for(key).reveal(index, ticked)))


def show_fragment_step(material: LessonMaterial, document: Document, prep: PreparedDoc) -> None:
    """Step 1: the step-1 question, where the splitter cut its evidence, and the two halves
    side by side with the evidence highlighted."""
    lesson = material.lesson
    evidence = lesson.query.evidence[0]
    step = fragment_step(
        prep.chunks,
        document.text,
        prep.unit,
        material.qvec,
        evidence.start,
        evidence.end,
        DEFAULT_K,
    )
    st.markdown(f"**Question:** {html.escape(lesson.query.query)}")
    if lesson.type != "fragmented" or step is None:
        st.info(f"Under the current chunking this query is {lesson.type}: no boundary cuts it.")
        return
    st.write(step.sentence())
    for col, part in zip(st.columns(2), step.parts, strict=True):
        col.html(fragment_part_html(part))
    st.caption("Highlighted: the evidence. Each half alone answers only part of the question.")


def show_scale_step(key: tuple, prep: PreparedDoc, material: LessonMaterial) -> None:
    """Step 4: two models' scales, the relative bar against an absolute one tuned on model 1
    (the α and β sliders, the two figures, the decisions a bar changes)."""
    figures = st.container()  # the two figures first; the sliders and the theory after them
    c1, c2 = st.columns(2)
    alpha = c1.slider("Model 2 offset α", -0.3, 0.6, SCALE_ALPHA, 0.05, key=keys.L_ALPHA, bind=URL)
    beta = c2.slider("Model 2 spread β", 0.2, 1.5, SCALE_BETA, 0.05, key=keys.L_BETA, bind=URL)
    decisions = cached((*key, "pooled"), lambda: pooled_decisions(prep.unit, material.vecs))
    demo = scale_demo(decisions, alpha, beta)
    with figures:
        m1, m2 = st.columns(2)
        m1.metric(
            "Relative bar keeps",
            fmt.percent(demo.keep_rel),
            help=f"of model 1's {len(demo.rows)} decisions; {len(demo.changed_rel)} change",
        )
        m2.metric(
            "Absolute bar keeps",
            fmt.percent(demo.keep_abs),
            help=f"of model 1's {len(demo.rows)} decisions; {len(demo.changed_abs)} change",
        )
        st.caption(scale_caption(demo))
    st.write(SCALE_INTRO)
    table = scale_rows(demo)
    if table:
        digits = st.column_config.NumberColumn(format=f"%.{scale_digits(demo)}f")
        show_table(
            pd.DataFrame(table),
            hide_index=True,
            key=keys.L_SCALE_TABLE,
            column_config=dict.fromkeys(("S", "bar", "S′", "bar′"), digits),
        )
        st.caption("One row per decision that a bar changes; a pair recurs once per question.")
    else:
        st.caption("No decision changes at this α and β.")
