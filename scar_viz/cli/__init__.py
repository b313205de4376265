"""``python -m scar_viz``: the sub-commands over the same functions the pages use."""
