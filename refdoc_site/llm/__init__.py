"""The LLM layer: a session (caching, concurrency, retries, budget, accounting) over a chat
provider (OpenAI, Azure OpenAI, OpenAI-compatible servers), and what the LLM writes.

An offline build only calls `open_session`, which finds nothing configured; the prompts
(summaries.py) are imported when a session exists, and `openai` when it first sends.
"""

from .session import HOW_TO_TURN_ON, LlmReport, LlmSession, LlmSettings, PhaseStats, open_session

__all__ = ["HOW_TO_TURN_ON", "LlmReport", "LlmSession", "LlmSettings", "PhaseStats", "open_session"]
