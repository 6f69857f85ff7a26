"""Where an OpenAI-style API is and which key it takes: refdoc.yml's values, else the environment.

Part of the bottom layer because the trust check (trust.py) asks the same question the
providers do, whether the environment alone names a server and a key, and must get the
same answer without importing a provider. The variables are listed in
`providers/openai_api.py`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from .errors import ApiError, ApiKeyError

PROVIDERS = ("openai", "azure")
DEFAULT_AZURE_API_VERSION = "2024-10-21"
NO_KEY = "no-key"
"""Sent to a compatible server (given by a base URL) when no key is set; most ignore it."""


@dataclass(frozen=True)
class ApiSettings:
    """Where and how to reach the API, resolved from refdoc.yml and the environment."""

    provider: str
    model: str
    base_url: str
    """The compatible server's base URL, or for Azure the endpoint; empty for OpenAI's own.
    The environment's, or a configuration's that trust.py let through: the key goes there."""
    api_key: str
    api_version: str = ""
    """Azure only."""
    model_variable: str = "OPENAI_EMBEDDING_MODEL"
    """The variable that names the model, for messages."""

    @classmethod
    def resolve(
        cls,
        provider: str = "",
        model: str = "",
        base_url: str = "",
        *,
        model_variable: str,
        default_model: str,
        environ: Mapping[str, str] | None = None,
    ) -> ApiSettings:
        """Settings from explicit values (refdoc.yml), else the environment; raises ApiError."""
        env = os.environ if environ is None else environ
        provider = (provider or env.get("OPENAI_PROVIDER", "") or "openai").strip().lower()
        if provider not in PROVIDERS:
            raise ApiError(f"OPENAI_PROVIDER: expected one of {', '.join(PROVIDERS)}, got {provider!r}")
        model = model or env.get(model_variable, "") or default_model
        if provider == "azure":
            endpoint = base_url or env.get("AZURE_OPENAI_ENDPOINT", "")
            if not endpoint:
                raise ApiError("Azure OpenAI: no endpoint; set AZURE_OPENAI_ENDPOINT (https://NAME.openai.azure.com)")
            key = env.get("AZURE_OPENAI_API_KEY", "")
            if not key:
                raise ApiKeyError("Azure OpenAI: no API key; set AZURE_OPENAI_API_KEY")
            version = env.get("OPENAI_API_VERSION", "") or DEFAULT_AZURE_API_VERSION
            return cls(provider, model, endpoint, key, version, model_variable)
        base_url = base_url or env.get("OPENAI_BASE_URL", "")
        key = env.get("OPENAI_API_KEY", "")
        if not key and not base_url:
            raise ApiKeyError(
                "OpenAI: no API key; set OPENAI_API_KEY (or OPENAI_PROVIDER=azure with AZURE_OPENAI_API_KEY, "
                "or OPENAI_BASE_URL for a compatible server)"
            )
        return cls(provider, model, base_url, key or NO_KEY, "", model_variable)

    @property
    def where(self) -> str:
        """The server, as messages name it."""
        if self.provider == "azure":
            return f"Azure OpenAI at {self.base_url}"
        return self.base_url or "the OpenAI API"

    @property
    def key_variable(self) -> str:
        return "AZURE_OPENAI_API_KEY" if self.provider == "azure" else "OPENAI_API_KEY"
