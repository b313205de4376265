"""Stage 4: cosine similarities, boundary penalties and the SCAR gate (``scar``), its parameters
and every default (``params``), decisions explained in words (``explain``), the gate over a
whole λ×τ grid at once (``sweep``) and the learned gate (``learned_gate``).
"""
