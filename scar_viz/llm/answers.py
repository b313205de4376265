"""Names the Streamlit pages and ``ui/`` import from here; the answer check itself lives in
:mod:`scar_viz.llm.prompts`, :mod:`~scar_viz.llm.scores`, :mod:`~scar_viz.llm.judge`,
:mod:`~scar_viz.llm.check` and :mod:`~scar_viz.llm.answer_json`. New code imports from those.
"""

from __future__ import annotations

from scar_viz.evaluation.references import reference_answers
from scar_viz.llm.answer_json import answer_json
from scar_viz.llm.check import AnswerCheck, check_answers
from scar_viz.llm.judge import DEFAULT_QUESTIONS

__all__ = ["DEFAULT_QUESTIONS", "AnswerCheck", "answer_json", "check_answers", "reference_answers"]
