"""Chart builders: plain data in, ``plotly.graph_objects.Figure`` out (no Streamlit here)."""

from scar_viz.charts.plane import decision_plane
from scar_viz.charts.strip import chunk_strip

__all__ = ["chunk_strip", "decision_plane"]
