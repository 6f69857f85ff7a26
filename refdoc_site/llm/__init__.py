"""The LLM layer: a session (caching, concurrency, retries, budget, accounting) over a chat
provider (OpenAI, Azure OpenAI, OpenAI-compatible servers), and what the LLM writes.

Nothing here is imported by the offline build: `open_session` is imported when a build
starts, and `openai` only when a session sends its first request.
"""

from .session import HOW_TO_TURN_ON, LlmReport, LlmSession, LlmSettings, PhaseStats, open_session

__all__ = ["HOW_TO_TURN_ON", "LlmReport", "LlmSession", "LlmSettings", "PhaseStats", "open_session"]
