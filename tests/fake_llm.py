"""A loopback fake of an OpenAI-compatible ``POST /v1/chat/completions`` for the LLM tests.

It stands in for a language model only: the code under test talks to it through the real
``openai`` client over HTTP. Replies are deterministic functions of the prompt: the task is
read from the system prompt's first line (``Task: <name>.``) and the inputs from the
user message's labelled sections, so a test can predict every reply. ``mode`` switches
failures on: 401, 429 (the first ``fail_times`` requests, then success), 500, slow,
malformed (the HTTP body is not JSON), garbage (the content is not JSON), fenced (the JSON
comes in a ```json block), 400 (always), no-format (400 whenever ``response_format`` is
sent, and for a message holding ``TOO-LONG``, like a prompt over the context limit), html
(the answer holds markup and a script), bad-evidence (evidence that is in no document), copy
(the question repeats its evidence), one-side (a boundary query's evidence stays before the
cut). Every request is recorded with its headers.

The replies are made from string rules, not language: never read answer quality from them.
"""

from __future__ import annotations

import json
import re
import time

from tests.fake_http import JsonServer, send_json, send_raw

HTML_ANSWER = '<b>bold</b> <img src=x onerror="alert(1)"><script>alert("pwned")</script>'
NOT_IN_DOCUMENT = "The harbour master keeps a purple giraffe in the lighthouse basement."


def _task(messages: list[dict]) -> str:
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    m = re.match(r"Task: ([a-z\-]+)\.", system)
    return m.group(1) if m else ""


def _section(text: str, name: str, following: tuple[str, ...] = ()) -> str:
    """The text after ``NAME:`` up to the next of ``following`` (or the end)."""
    start = text.find(name + ":")
    if start < 0:
        return ""
    start += len(name) + 1
    end = len(text)
    for nxt in following:
        j = text.find("\n\n" + nxt + ":", start)
        if j >= 0:
            end = min(end, j)
    return text[start:end].strip("\n")


def _lines(text: str) -> list[str]:
    """Lines of 12 characters or more (else the whole text), stripped: document substrings."""
    return [ln.strip() for ln in text.splitlines() if len(ln.strip()) >= 12] or [
        text.strip() or "nothing"
    ]


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[A-Za-z]{4,}", text)]


def _supported(piece: str, context: str) -> bool:
    norm = " ".join(context.split())
    probe = " ".join(piece.split())[:40]
    return bool(probe) and probe in norm


RETRY_NOW = {"Retry-After": "0", "Retry-After-Ms": "1"}
"""A 429's or 500's headers: retry after 1 ms (OpenAI's own header; the ``openai`` client
honours only a positive delay and otherwise backs off from 0.5 s, doubling)."""


class ChatServer(JsonServer):
    """The fake server on 127.0.0.1 (a free port); use as a context manager."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.fail_times = 1
        self.delay = 0.0  # seconds before each answer, to let concurrent requests overlap
        super().__init__()

    def respond(self, handler, body: dict, n: int) -> None:
        mode = self.mode
        if mode == "401":
            return send_json(handler, 401, {"error": {"message": "Incorrect API key provided"}})
        if mode == "429" and n <= self.fail_times:
            return send_json(handler, 429, {"error": {"message": "Rate limit reached"}}, RETRY_NOW)
        if mode == "500":
            return send_json(handler, 500, {"error": {"message": "boom"}}, RETRY_NOW)
        if mode == "400":
            return send_json(handler, 400, {"error": {"message": "context length exceeded"}})
        if self.delay:
            time.sleep(self.delay)
        if mode == "no-format" and "response_format" in body:
            return send_json(handler, 400, {"error": {"message": "response_format unsupported"}})
        if mode == "no-format" and any("TOO-LONG" in m["content"] for m in body["messages"]):
            return send_json(handler, 400, {"error": {"message": "context length exceeded"}})
        if mode == "slow":
            time.sleep(3)
        if mode == "malformed":
            raw = b'{"id": "x", "choices": [{"message": {"content": "'
            return send_raw(handler, 200, raw)
        content = self.reply(body["messages"])
        return send_json(
            handler,
            200,
            {
                "id": f"chatcmpl-{n}",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": content},
                    }
                ],
                "usage": {
                    "prompt_tokens": 10,
                    "completion_tokens": 5,
                    "total_tokens": 15,
                },
            },
        )

    @property
    def calls(self) -> int:
        return len(self.requests)

    # -- the "model" --------------------------------------------------------------------------

    def reply(self, messages: list[dict]) -> str:
        task = _task(messages)
        user = next((m["content"] for m in messages if m["role"] == "user"), "")
        if self.mode == "garbage" and task != "answer":
            return "Sorry, I cannot produce JSON today."
        if task == "answer":
            return self._answer(user)
        payload = getattr(self, "_" + task.replace("-", "_"), lambda _: {})(user)
        text = json.dumps(payload)
        if self.mode == "fenced":
            return f"Here you are:\n```json\n{text}\n```\nHope this helps."
        return text

    def _fragmented_query(self, user: str) -> dict:
        left = _section(user, "PASSAGE 1 (ends at the cut)", ("PASSAGE 2 (starts at the cut)",))
        right = _section(user, "PASSAGE 2 (starts at the cut)")
        a, b = _lines(left)[-1], _lines(right)[0]
        wa, wb = (_words(a) or ["this"])[-1], (_words(b) or ["that"])[0]
        evidence = [a, b]
        question = f"How does {wa.lower()} connect with {wb.lower()} in this part?"
        if self.mode == "bad-evidence":
            evidence = [a, NOT_IN_DOCUMENT]
        if self.mode == "copy":
            question = f"{a} {b}?"
        if self.mode == "one-side":
            evidence = [a]
        return {"question": question, "evidence": evidence, "answer": f"{a} {b}"}

    def _atomic_query(self, user: str) -> dict:
        lines = _lines(_section(user, "PASSAGE"))
        a = lines[len(lines) // 2]
        word = (_words(a) or ["it"])[0].lower()
        return {"question": f"What is said about {word} here?", "evidence": [a], "answer": a}

    def _answer(self, user: str) -> str:
        context = _section(user, "CONTEXT", ("QUESTION",))
        first = (_lines(context) or ["nothing"])[0]
        if self.mode == "html":
            return f"{HTML_ANSWER} {first}"
        return first

    def _faithfulness(self, user: str) -> dict:
        context = _section(user, "CONTEXT", ("ANSWER",))
        answer = _section(user, "ANSWER")
        claims = [c for c in re.split(r"(?<=[.!?])\s+", answer) if c.strip()]
        return {"claims": [{"claim": c, "supported": _supported(c, context)} for c in claims]}

    def _relevancy(self, user: str) -> dict:
        n = int(re.search(r"NUMBER OF QUESTIONS: (\d+)", user).group(1))
        words = _words(_section(user, "ANSWER"))
        return {"questions": [f"What about {' '.join(words[i : i + 3])}?" for i in range(n)]}

    def _context_recall(self, user: str) -> dict:
        context = _section(user, "CONTEXT", ("STATEMENTS",))
        statements = json.loads(_section(user, "STATEMENTS"))
        return {
            "statements": [
                {"statement": s, "supported": _supported(s, context)} for s in statements
            ]
        }

    def _correctness(self, user: str) -> dict:
        answer = _section(user, "ANSWER", ("REFERENCE",))
        reference = _section(user, "REFERENCE")
        if _supported(answer, reference) or _supported(reference, answer):
            return {"TP": [answer], "FP": [], "FN": []}
        return {"TP": [], "FP": [answer], "FN": [reference]}
