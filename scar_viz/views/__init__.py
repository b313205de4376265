"""What each page shows, computed here so the page scripts stay widgets -> core call -> render:
the Explorer, Compare, the chunking lab, fitting a gate, saved sessions.
"""
