"""The second flow, joined at Selection: a chat model over any OpenAI-compatible endpoint
(``client``), queries made from a document (``querygen``) and the answer check: its prompts
(``prompts``), scores over the judge's verdicts (``scores``), the answer and judge calls
(``judge``), the check over a query set (``check``), its JSON (``answer_json``) and the
Answers page's tables (``tables``).
"""
