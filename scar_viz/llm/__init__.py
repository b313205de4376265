"""The second flow, joined at Selection: a chat model over any OpenAI-compatible endpoint
(``client``), queries made from a document (``querygen``) and the answer check (``answers``).
"""
