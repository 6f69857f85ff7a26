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


HEX = "0123456789abcdef"
URLSAFE = ALNUM + "-_"


def modern_tokens() -> dict[str, str]:
    """One token of each modern prefixed format, by provider: what a scanner's rule set knows."""
    return {
        "github-fine-grained": "github_pat_11" + token(80, ALNUM + "_"),
        "openai-project": "sk-proj-" + token(74, URLSAFE) + "T3BlbkFJ" + token(74, URLSAFE),
        "anthropic": "sk-ant-api03-" + token(93, URLSAFE) + "AA",
        "huggingface": "hf_" + token(34, string.ascii_letters),
        "npm": "npm_" + token(36),
        "stripe-webhook": "whsec_" + token(32),
        "google": "AIza" + token(35, URLSAFE),
        "slack-app": f"xapp-1-A{token(10, string.ascii_uppercase + string.digits)}-{token(13, string.digits)}-{token(64, HEX)}",
        "shopify": "shpat_" + token(32, HEX),
        "digitalocean": "dop_v1_" + token(64, HEX),
    }


def putty_key() -> tuple[str, list[str]]:
    """A PuTTY `.ppk` key: its private lines and MAC are the secret, the public part is not."""
    private = [token(64, ALNUM + "+/") for _ in range(3)] + [token(20, ALNUM + "+/") + "="]
    mac = token(64, HEX)
    text = ("PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n"
            f"{token(64, ALNUM + '+/')}\n{token(20, ALNUM + '+/')}\nPrivate-Lines: {len(private)}\n"
            + "\n".join(private) + f"\nPrivate-MAC: {mac}\n")
    return text, [*private, mac]
