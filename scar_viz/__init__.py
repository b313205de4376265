"""scar-viz: see, explain and fix boundary fragmentation in RAG."""

__version__ = "0.1.0"
