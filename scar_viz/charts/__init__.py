"""Chart builders: plain data in, ``plotly.graph_objects.Figure`` out (no Streamlit here)."""

from scar_viz.charts._style import at_least as at_least
from scar_viz.charts.boundaries import boundary_map, passage_html
from scar_viz.charts.budget import budget_chart as budget_chart
from scar_viz.charts.fragmentation import fragmentation_curves, fragmentation_heatmap
from scar_viz.charts.heatmap import sweep_heatmap as sweep_heatmap
from scar_viz.charts.pareto import pareto_chart as pareto_chart
from scar_viz.charts.plane import decision_plane
from scar_viz.charts.scales import bar_transfer_chart as bar_transfer_chart
from scar_viz.charts.scales import similarity_histograms as similarity_histograms
from scar_viz.charts.strip import chunk_strip

__all__ = [
    "boundary_map",
    "chunk_strip",
    "decision_plane",
    "fragmentation_curves",
    "fragmentation_heatmap",
    "passage_html",
]
