"""Token and cost accounting: the price table (data, in prices.json) and estimates.

Tokens are what the server reports; where it reports none, and for `--dry-run`, they are
estimated with the project's own count (tokens.py: words, numbers and punctuation marks),
which needs no downloaded vocabulary.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from ..core.tokens import count_tokens

MESSAGE_OVERHEAD = 4
"""Tokens the chat format adds per message (role and separators)."""
DATED_SUFFIX = re.compile(r"-\d{4}-\d{2}-\d{2}$")
HOW_TO_PRICE = (
    "give its [input, output] USD per million tokens under llm: prices: in the operator's configuration "
    "(a --config FILE outside the repository, or refdoc.yml with --trust-config); "
    "the repository's own prices count only when trusted"
)
"""Where the operator adds a price: trust.py drops the repository's untrusted `llm.prices`."""


@cache
def builtin_prices() -> dict[str, tuple[float, float]]:
    data = json.loads((Path(__file__).parent / "prices.json").read_text(encoding="utf-8"))
    return {model: (float(pair[0]), float(pair[1])) for model, pair in data["models"].items()}


@dataclass(frozen=True)
class PriceTable:
    """USD per million tokens (input, output) by model; the configuration's entries first
    (the repository's only when trusted: trust.py)."""

    extra: dict[str, tuple[float, float]] = field(default_factory=dict)

    def price(self, model: str) -> tuple[float, float] | None:
        for name in (model, DATED_SUFFIX.sub("", model)):
            found = self.extra.get(name) or builtin_prices().get(name)
            if found:
                return found
        return None

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        """USD, or None for a model without a known price."""
        price = self.price(model)
        if price is None:
            return None
        return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000


def estimate_prompt_tokens(messages: list[dict]) -> int:
    return sum(count_tokens(str(message.get("content", ""))) + MESSAGE_OVERHEAD for message in messages) + 3
