"""The LLM layer: a session (caching, concurrency, retries, budget, accounting) over a chat
provider (OpenAI, Azure OpenAI, OpenAI-compatible servers).

What the LLM writes lives with the stage it writes for: the summaries in
indexing/llm_chunks.py and understanding/llm_hierarchy.py, the pages in writing/. An
offline build only calls `open_session`, which finds nothing configured; `openai` is
imported when a session first sends.
"""

from .session import HOW_TO_TURN_ON, LlmReport, LlmSession, LlmSettings, PhaseStats, open_session

__all__ = ["HOW_TO_TURN_ON", "LlmReport", "LlmSession", "LlmSettings", "PhaseStats", "open_session"]
