"""Stage 4: cosine similarities, boundary penalties and the SCAR gate (``scar``), the neighbour
walk and judge signature every gate shares (``walk``), its parameters and every default
(``params``), decisions explained in words (``explain``), the gate over a whole λ×τ grid at once
(``sweep``) and the learned gate (the ``learned`` subpackage).
"""
