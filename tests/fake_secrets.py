"""Secrets made up when the tests run, in the shapes the detectors know, so this repository
holds no key that looks live (and trips no scanner). Seeded: every run makes the same ones."""

from __future__ import annotations

import base64
import json
import random
import string

RANDOM = random.Random(20240611)
ALNUM = string.ascii_letters + string.digits


def token(length: int, alphabet: str = ALNUM) -> str:
    return "".join(RANDOM.choice(alphabet) for _ in range(length))


def aws_key_id() -> str:
    return "AKIA" + token(16, string.ascii_uppercase + "234567")  # base32, as AWS makes them


def github_token() -> str:
    return "ghp_" + token(36)


def slack_token() -> str:
    return f"xoxb-{token(11, string.digits)}-{token(12, string.digits)}-{token(24, string.ascii_lowercase + string.digits)}"


def stripe_key() -> str:
    return "sk_live_" + token(24)


def jwt() -> str:
    def part(data: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part({'sub': token(8), 'admin': True})}.{token(43, ALNUM + '-_')}"


def private_key_block() -> tuple[str, list[str]]:
    lines = [token(64, ALNUM + "+/") for _ in range(5)] + [token(20, ALNUM + "+/") + "=="]
    return "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END RSA PRIVATE KEY-----\n", lines
