"""Optional remote providers (OpenAI, Azure OpenAI, OpenAI-compatible servers).

Nothing here is imported by the offline build: the pipeline and the CLI import these
modules only when an API provider is configured, and the modules import `openai` lazily.
"""
