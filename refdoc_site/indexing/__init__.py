"""Phase 1, index: discover → chunk → analyze → summarize each chunk, one module a stage."""
