"""Phase 3, render: stored records → Markdown pages through Jinja, the MkDocs project and
its build, and the publishing of the built site into the output folder."""
