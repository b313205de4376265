"""scar_viz.llm.prompts: each request carries its inputs under the labels its prompt names."""

from __future__ import annotations

import json

from scar_viz.llm.prompts import (
    ANSWER_PROMPT,
    RECALL_PROMPT,
    answer_messages,
    correctness_messages,
    recall_messages,
    relevancy_messages,
)


def test_answer_messages_are_system_then_user():
    (system, user) = answer_messages("Why?", "The context.")
    assert system == {"role": "system", "content": ANSWER_PROMPT}
    assert user["role"] == "user"
    assert user["content"] == "CONTEXT:\nThe context.\n\nQUESTION: Why?"


def test_judge_requests_carry_their_inputs():
    system, user = recall_messages("ctx", ["Größe 1.", "Two."])
    assert system["content"] == RECALL_PROMPT
    listed = user["content"].split("STATEMENTS:\n", 1)[1]
    assert json.loads(listed) == ["Größe 1.", "Two."] and "Größe" in listed  # not escaped
    assert "NUMBER OF QUESTIONS: 4" in relevancy_messages("A.", 4)[1]["content"]
    content = correctness_messages("Q?", "A.", "R.")[1]["content"]
    assert (
        content.index("QUESTION: Q?")
        < content.index("ANSWER:\nA.")
        < content.index("REFERENCE:\nR.")
    )
