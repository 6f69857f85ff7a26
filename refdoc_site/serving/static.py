"""Which file of the built site a URL path names: only regular files inside the site folder,
never a dotfile (the site's `.refdoc-site.json` marker included), never through `..`, a
backslash, a NUL or a link that leads out."""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".xml": "application/xml",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
    ".bin": "application/octet-stream",
    ".gz": "application/gzip",  # a packed search piece (search/site_shards.py), unpacked by the page
}


@dataclass(frozen=True)
class Found:
    path: Path | None
    """The file to send, or None with `redirect` set."""
    redirect: str = ""
    """A folder named without its closing slash: where to send the browser (relative links
    on its page resolve against the slash)."""


def site_file(site_dir: Path, url_path: str) -> Found | None:
    """The file `url_path` (the URL's path, still quoted) names in `site_dir`, or None."""
    try:
        decoded = unquote(url_path, errors="strict")
    except UnicodeDecodeError:
        return None
    if not decoded.startswith("/") or "\\" in decoded or "\x00" in decoded:
        return None
    parts = [part for part in decoded.split("/") if part]
    if any(part.startswith(".") for part in parts):
        return None
    root = site_dir.resolve()
    target = root.joinpath(*parts)
    if target.is_dir():
        if not decoded.endswith("/"):
            return Found(None, redirect=url_path + "/")
        target = target / "index.html"
    try:
        resolved = target.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if not resolved.is_relative_to(root) or not resolved.is_file():
        return None
    return Found(resolved)


def content_type(path: Path) -> str:
    known = TYPES.get(path.suffix.lower())
    if known:
        return known
    guessed, _ = mimetypes.guess_type(path.name)
    return guessed or "application/octet-stream"
