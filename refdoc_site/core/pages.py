"""Addresses inside the generated site: page paths and chunk anchors.

Shared by every stage that links to a page (rendering, decisions, plans, search data), so
that a link and the page it points at are always named by the same rule.

A page path is built from names the repository chose, so each segment is encoded:
characters a URL, MkDocs or a file system treat specially become `~XX` (`~uXXXX`,
`~UXXXXXXXX` above U+00FF), and a segment MkDocs would drop (a leading dot: its default
`exclude_docs`) or give a meaning (a page named `index` or `README` becomes its folder's
index; `_root` is the root module's page) has its first character escaped the same way.
`~` itself is always escaped, so every encoded segment decodes to exactly one name: two
different names never share a page. Ordinary names (`src/app.py`, `design notes é.md`) are
kept as they are.

A file system takes 255 bytes a name, and a name escaped three characters a byte (`#` is
`~23`) or given `.md` can outgrow it: a segment longer than `SEGMENT_MAX_BYTES` keeps its
start and ends in `~h` and a hash of the whole name. No escape starts `~h`, so such a
segment is no other name's, and two long names with the same start differ by their hash.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
import unicodedata
from urllib.parse import quote

ANCHOR_UNSAFE = re.compile(r"[^A-Za-z0-9.-]+")
"""Underscores go too: Markdown would read `__init__` inside an attribute list as bold."""

SITE_MARKER = ".refdoc-site.json"
"""The file at the root of every site refdoc-site built (rendering/outputs.py writes it):
what lets `--out` replace only a site of ours, and discovery skip a built site that sits in
the repository (a CI job's `_publish/site`)."""

SYSTEM_PAGE = "summaries/system.md"
ROOT_MODULE = "(root)"
"""The module of the files at the repository's top level (graph.py assigns it)."""

KEPT_PUNCTUATION = frozenset(" -_.+,=@()[]!$&'")
"""ASCII punctuation kept in a page path besides letters, marks and digits of any script:
none of it is a URL delimiter (`#`, `?`, `%`), a path separator (`\\`) or markup."""
SEGMENT_ESCAPE = "~"
SEGMENT_MAX_BYTES = 200
"""Bytes of one encoded segment at most: with `.md`, and the `.NAME.XXXXXXXX` of a
temporary file written beside a page, still under the 255 bytes file systems allow."""
LONG_NAME_MARK = "~h"
LONG_NAME_HASH_CHARS = 16
ROOT_MODULE_SEGMENT = "_root"
INDEX_STEMS = frozenset({"index", "README"})
"""File names MkDocs turns into their folder's index page (`docs/README` would take `docs/`)."""


def file_page(path: str) -> str:
    """`src/app.py` → `files/src/app.py.md`; `.github/ci.yml` → `files/~2Egithub/ci.yml.md`."""
    return f"files/{_page_path(path)}.md"


def module_page(module: str) -> str:
    """`src/app` → `modules/src/app.md`; the root module is `modules/_root.md`, and a folder
    really called `_root` is `modules/~5Froot.md`."""
    if module == ROOT_MODULE:
        return f"modules/{ROOT_MODULE_SEGMENT}.md"
    return f"modules/{_page_path(module, INDEX_STEMS | {ROOT_MODULE_SEGMENT})}.md"


def _page_path(path: str, reserved_stems: frozenset[str] = INDEX_STEMS) -> str:
    *folders, name = path.split("/")
    return "/".join([*(path_segment(folder) for folder in folders), path_segment(name, reserved_stems)])


def path_segment(name: str, reserved: frozenset[str] = frozenset()) -> str:
    """One name as a page path segment that MkDocs keeps, URLs carry and decodes back to `name`."""
    units = [character if _kept(character) else _escaped(character) for character in name]
    if units and (units[0] == "." or name in reserved):
        units[0] = _escaped(name[0])
    encoded = "".join(units)
    if len(encoded.encode("utf-8")) <= SEGMENT_MAX_BYTES:
        return encoded
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:LONG_NAME_HASH_CHARS]
    room, kept = SEGMENT_MAX_BYTES - len(LONG_NAME_MARK) - len(digest), []
    for unit in units:  # whole units: an escape is never cut in two
        room -= len(unit.encode("utf-8"))
        if room < 0:
            break
        kept.append(unit)
    return "".join(kept) + LONG_NAME_MARK + digest


def _kept(character: str) -> bool:
    if character.isascii():
        return character.isalnum() or character in KEPT_PUNCTUATION
    return unicodedata.category(character)[0] in "LMN"


def _escaped(character: str) -> str:
    code = ord(character)
    if code <= 0xFF:
        return f"{SEGMENT_ESCAPE}{code:02X}"
    if code <= 0xFFFF:
        return f"{SEGMENT_ESCAPE}u{code:04X}"
    return f"{SEGMENT_ESCAPE}U{code:08X}"


def page_url(page: str) -> str:
    """A page's site-relative URL as MkDocs serves it: `files/src/app.py.md` →
    `files/src/app.py/`; an index page is its folder's (`guide/index.md` → `guide/`,
    `index.md` → `./`)."""
    path = page.removesuffix(".md")
    if path == "index" or path.endswith("/index"):
        path = path.removesuffix("index").rstrip("/")
    return quote(path) + "/" if path else "./"


def relative_page_url(target_page: str, from_page: str) -> str:
    """The URL of `target_page` relative to the URL `from_page` is served at, for a link
    in raw HTML (MkDocs rewrites only Markdown links): `files/a.py.md` from `index.md` →
    `files/a.py/`, from `modules/a.md` → `../../files/a.py/`."""
    relative = posixpath.relpath(_served_folder(target_page) or ".", _served_folder(from_page) or ".")
    return "./" if relative == "." else quote(relative) + "/"


def _served_folder(page: str) -> str:
    path = page.removesuffix(".md")
    if path == "index" or path.endswith("/index"):
        path = path.removesuffix("index")
    return path.rstrip("/")


def chunk_url(path: str, symbol: str) -> str:
    """The site-relative URL of a definition's section: `files/src/app.py/#chunk-App-run`."""
    return f"{page_url(file_page(path))}#{chunk_anchor(symbol)}"


def chunk_anchor(symbol: str) -> str:
    """The HTML id of a definition's section on its file page. A definition split into token
    windows has one section, so every window's link lands on the same anchor."""
    slug = ANCHOR_UNSAFE.sub("-", symbol).strip("-") or "chunk"
    return f"chunk-{slug}"


MAP_FOLDER = "map"
"""The pages of the component hierarchy's parts and groups (`understanding/components.py`);
a group's name ends in `~g…`, which no encoded name can hold (`~` is always escaped)."""


def component_page(component_id: str) -> str:
    """The page a component of the hierarchy links to, by its id: the overview for the
    system, a module's or file's own page, else a page under `map/` (`part:tests` →
    `map/tests.md`; `group:2:module:src/app` → `map/modules/src/app/~g2.md`)."""
    kind, _, rest = component_id.partition(":")
    if kind == "system":
        return "index.md"
    if kind == "module":
        return module_page(rest)
    if kind == "file":
        return file_page(rest)
    if kind == "part":
        return f"{MAP_FOLDER}/{path_segment(rest)}.md"
    sequence, _, owner = rest.partition(":")
    owner_page = component_page(owner).removesuffix(".md")
    folder = "" if owner_page == "index" else owner_page.removeprefix(f"{MAP_FOLDER}/") + "/"
    return f"{MAP_FOLDER}/{folder}{SEGMENT_ESCAPE}g{sequence}.md"


RESERVED_PLAN_SLUGS = frozenset({"milestones", "index"})
"""`milestones` is the refactoring plan's page; `index` would become the Plans section's index."""
PLAN_SLUG_CHARS = 60
PLAN_SLUG_UNSAFE = re.compile(r"[^\w]+")
"""Letters of any script stay (a Japanese query keeps its words); everything else is a dash."""


def plan_slug(query: str) -> str:
    """`"Add rate limiting!"` → `add-rate-limiting`; a slug that would clash or be empty gets a hash."""
    text = unicodedata.normalize("NFKC", query).lower()
    slug = PLAN_SLUG_UNSAFE.sub("-", text).strip("-_")[:PLAN_SLUG_CHARS].strip("-_")
    if not slug or slug in RESERVED_PLAN_SLUGS:
        slug = f"{slug or 'plan'}-{hashlib.sha256(query.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"
    return slug


def plan_page(slug: str) -> str:
    return f"plans/{slug}.md"
