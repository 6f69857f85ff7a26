"""refdoc-site: turn a code repository into a static MkDocs site that explains it.

The pipeline is `pipeline.build()`: index (discover → chunk → analyze → summarize →
store), summarize (graph and hierarchy), render (Markdown through Jinja), site (MkDocs).
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
