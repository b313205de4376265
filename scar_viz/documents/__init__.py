"""Stage 1 of the flow: file bytes (an upload or the built-in sample) to a ``Document``:
text, section headings, sentences, starting questions.
"""
