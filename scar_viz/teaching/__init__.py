"""The guided lesson (Learn): a real fragmented pair, predict-then-reveal rounds, and why the bar
is relative.
"""
