"""What each page shows, computed here so the page scripts stay widgets -> core call -> render:
the Explorer (``explorer``, ``focus``), Compare (``compare``, ``coverage``), the chunking lab
(``chunking_lab``), fitting a gate (``fit_report``) and saved sessions (``session``).
"""
