"""The site's map for language models: `llms.txt`, and a Markdown copy of every page.

`llms.txt` follows the llms.txt convention: the site's name as `# ` heading, the system
summary as a `> ` line, then sections of `- [name](url): description` lines (overview,
modules, decisions, files, and an `Optional` section an agent may skip), most important
first and bounded in size however big the repository is. `llms-full.txt` beside it holds
the summaries themselves (system, modules, decisions, every file's line) in one file.

Its links point at the Markdown copies: every page's Markdown, as rendered (front matter
left out), under `md/` in the site with the page's own path (`files/src/app.py.md` →
`md/files/src/app.py.md`). The copies are every page once more, so refdoc.yml's
`markdown_copies` (`auto` by default) keeps them only while they total at most
`MARKDOWN_COPIES_BUDGET` (click's and httpx's sites carry them; django's 21 MB and
homeassistant's 185 MB would not); without them both files link to the HTML pages, which
a model reads as well, and `llms-full.txt` still holds the summaries. All or none: a copy's
links lead to other copies, so a partial set would leave links with nothing behind them. Keeping the docs tree's paths keeps every relative link in a
copy pointing at another copy, with no rewriting, and the links work wherever the site is
served (a sub-path, a pull request's preview). MkDocs copies `llms.txt` into the site as
a static file; the copies are written by the `on_post_build` hook, so `mkdocs build` by
hand makes them too.

Every name from the repository is a code span (its backticks cannot close it; in Markdown
nothing inside one is markup), every description is escaped prose (`prose`: render.escape_text
but for an underscore inside a word, which neither CommonMark nor
Python-Markdown reads as emphasis, so a model reading the file sees `open_stream`, not
`open\\_stream`), every URL a percent-encoded relative path: no name can add a line, a link
or markup.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from urllib.parse import quote

from ..core.pages import SYSTEM_PAGE, file_page, module_page, plan_page
from ..core.records import FileRole
from .changes import CHANGES_PAGE
from .render import SiteData, code_span, escape_text, one_line, page_labels

LLMS_TXT = "llms.txt"
LLMS_FULL_TXT = "llms-full.txt"
MARKDOWN_DIR = "md"
"""Where the Markdown copies of the pages sit in the site."""
MAX_MODULES = 100
MAX_FILES = 200
MAX_DECISIONS = 30
SUMMARY_CHARS = 600
"""The `> ` line: the system summary, cut at a word."""
DESCRIPTION_CHARS = 200
"""A link's description, cut at a word: a big repository's map stays well under 100 KB."""
FULL_MAX_FILES = 5000
FULL_TEXT_CHARS = 2000
"""`llms-full.txt`: every summary whole (up to this), every file up to `FULL_MAX_FILES`."""
FULL_MAX_CHARS = 2_000_000
"""`llms-full.txt` in all, about half a million tokens: the modules and the files stop there
(the most used first), the rest named by the summary pages."""
MODULES_SHARE = 0.6
"""Of `FULL_MAX_CHARS`, what the modules may fill before the decisions and files."""
MARKDOWN_COPIES_BUDGET = 10_000_000
"""Bytes of the pages' Markdown under which `markdown_copies: auto` ships their copies."""
MARKDOWN_COPIES_KEY = "refdoc_markdown_copies"
"""`mkdocs.yml`'s `extra:` key the hook reads: whether to write the copies."""
INTRAWORD_UNDERSCORE = re.compile(r"(?<=[^\W_])\\_(?=[^\W_])")
"""An escaped `_` between two letters or digits: it can open or close no emphasis."""
FULL_NAMES = 30
"""Names listed for a module's public API and its dependencies in `llms-full.txt`."""


def markdown_url(page: str) -> str:
    """The site-relative URL of a page's Markdown copy (`files/a b.py.md` → `md/files/a%20b.py.md`)."""
    return quote(f"{MARKDOWN_DIR}/{page}")


def html_url(page: str) -> str:
    """The site-relative URL of a page's HTML (`files/a b.py.md` → `files/a%20b.py/`, `index.md` → `./`)."""
    stem = page[: -len(".md")]
    stem = stem[: -len("index")] if stem == "index" or stem.endswith("/index") else f"{stem}/"
    return quote(stem) or "./"


def copies_wanted(mode: str, docs_dir: Path, pages: list[str]) -> bool:
    """Whether the site carries the pages' Markdown copies under refdoc.yml's
    `markdown_copies` (`auto`: while they total at most `MARKDOWN_COPIES_BUDGET`)."""
    if mode != "auto":
        return mode == "all"
    total = 0
    for page in pages:
        total += (docs_dir / page).stat().st_size if (docs_dir / page).is_file() else 0
        if total > MARKDOWN_COPIES_BUDGET:
            return False
    return True


def llms_txt(data: SiteData, pages: list[str], copies: bool = True) -> str:
    """The `llms.txt` of a site whose rendered pages are `pages` (docs-relative paths);
    its links lead to the pages' Markdown copies, or with no `copies` to their HTML."""
    hierarchy = data.hierarchy
    url = markdown_url if copies else html_url
    written = set(pages)
    lines = [f"# {prose(data.site_name)}", ""]
    if hierarchy.system.text.strip():
        lines += [f"> {prose(_cut(hierarchy.system.text, SUMMARY_CHARS))}", ""]
    lines += [
        "The documentation of this repository, built by refdoc-site. Each link is the "
        + ("Markdown of a page of the site; its HTML page has the same path without `md/` and `.md`." if copies else "HTML page of the site."),
        "",
    ]

    overview = [
        ("Overview", "index.md", "what the repository is made of: statistics, the system summary, the module map"),
        ("System summary", SYSTEM_PAGE, "the layers and boundaries of the whole system"),
        ("Decision log", "decisions.md", "the design decisions the code shows, each with its evidence"),
        ("Refactoring plan", "plans/milestones.md", "phases of a refactoring, from measured facts"),
        ("What changed", CHANGES_PAGE, "what the compared commit changed, by module and definition"),
    ]
    overview += [(f"Plan: {plan.query}", plan_page(plan.slug), "a proposal for this request") for plan in data.plans]
    # A decision log with no decision only says none was found: not worth a model's read.
    empty = set() if data.decisions else {"decisions.md"}
    lines += _section("Overview", [_entry(prose(title), url(page), text) for title, page, text in overview if page in written - empty])

    modules = _ranked_modules(data)
    entries = [_entry(code_span(name), url(module_page(name)), hierarchy.modules[name].text) for name in modules[:MAX_MODULES]]
    if len(modules) > MAX_MODULES:
        entries.append(_entry(f"{len(modules) - MAX_MODULES} more modules", url("summaries/modules.md"), "every module's summary"))
    lines += _section("Modules", entries)

    decisions = data.decisions[:MAX_DECISIONS]
    lines += _section("Decisions", [_entry(prose(d.title), url("decisions.md"), d.decision) for d in decisions])

    files = _ranked_files(data)
    entries = [_entry(code_span(path), url(file_page(path)), hierarchy.files[path].text) for path in files[:MAX_FILES]]
    if len(files) > MAX_FILES:
        entries.append(_entry(f"{len(files) - MAX_FILES} more files", url("summaries/files.md"), "every file's one-line summary"))
    lines += _section("Files", entries)

    optional = [
        ("All module summaries", "summaries/modules.md", "one paragraph for each module"),
        ("All file summaries", "summaries/files.md", "one line for each file, by path"),
    ]
    full = _entry("All the summaries in one file", LLMS_FULL_TXT, "the system, every module and decision, every file's line")
    lines += _section("Optional", [full, *(_entry(title, url(page), text) for title, page, text in optional if page in written)])
    return "\n".join(lines).rstrip("\n") + "\n"


def llms_full_txt(data: SiteData, copies: bool = True) -> str:
    """`llms-full.txt`: the site's summaries in one file, for a model to read at once: the
    system summary, every module's summary with its boundary, the decisions whole, and
    every file's summary line (the file pages themselves, with the code, stay in `md/`),
    at most `FULL_MAX_CHARS` in all (the most used modules and files first)."""
    hierarchy = data.hierarchy
    url = markdown_url if copies else html_url
    system = hierarchy.system
    lines = [f"# {prose(data.site_name)}", ""]
    if system.text.strip():
        lines += [f"> {prose(_cut(system.text, FULL_TEXT_CHARS))}", ""]
    layers = [", ".join(code_span(name) for name in layer[:FULL_NAMES]) for layer in system.layers]
    lines += _section("System", [f"- Layer {n}: {layer}" for n, layer in enumerate(layers, start=1)])
    lines += ["## Modules", ""] if hierarchy.modules else []
    size = sum(len(line) + 1 for line in lines)
    ranked = _ranked_modules(data)
    for shown, name in enumerate(ranked):
        if size > FULL_MAX_CHARS * MODULES_SHARE:
            lines += [_entry(f"{len(ranked) - shown} more modules", url("summaries/modules.md"), "every module's summary"), ""]
            break
        module = hierarchy.modules[name]
        text = prose(_cut(module.text, FULL_TEXT_CHARS))
        start = len(lines)
        lines += [f"### {code_span(name)}", "", f"{text} ([page]({url(module_page(name))}))", ""]
        facts = [f"{_count(len(module.files), 'file')}, {_count(module.lines, 'line')}."]
        for label, names in (("Public API", module.public_api), ("Depends on", module.depends_on), ("Used by", module.used_by)):
            if names:
                more = f" and {len(names) - FULL_NAMES} more" if len(names) > FULL_NAMES else ""
                facts.append(f"{label}: {', '.join(code_span(n) for n in names[:FULL_NAMES])}{more}.")
        lines += [" ".join(facts), ""]
        size += sum(len(line) + 1 for line in lines[start:])
    labels = page_labels(data.language)  # the decision log's, as its page says them
    lines += [f"## {labels['decisions']}", ""] if data.decisions else []
    for decision in data.decisions:
        lines += [f"### {prose(decision.title)}", ""]
        for label, text in (("context", decision.context), ("decision", decision.decision), ("consequences", decision.consequences)):
            if text.strip():
                lines += [f"{labels[label]}: {prose(_cut(text, FULL_TEXT_CHARS))}", ""]
    files = _ranked_files(data)[:FULL_MAX_FILES]
    size = sum(len(line) + 1 for line in lines)
    entries = []
    for path in files:
        entries.append(_entry(code_span(path), url(file_page(path)), hierarchy.files[path].text))
        size += len(entries[-1]) + 1
        if size > FULL_MAX_CHARS:
            break
    if len(entries) < len(hierarchy.files):
        entries.append(_entry(f"{len(hierarchy.files) - len(entries)} more files", url("summaries/files.md"), "every file's one-line summary"))
    lines += _section("Files", entries)
    return "\n".join(lines).rstrip("\n") + "\n"


def prose(value: object) -> str:
    """Escaped text (render.escape_text) whose underscores inside words stay as written."""
    return INTRAWORD_UNDERSCORE.sub("_", escape_text(value))


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _section(title: str, entries: list[str]) -> list[str]:
    return [f"## {title}", "", *entries, ""] if entries else []


def _entry(label: str, url: str, description: str) -> str:
    """One link line to `url` (a page's Markdown copy or its HTML); `label` is already
    Markdown (a code span or escaped text)."""
    text = prose(_cut(description, DESCRIPTION_CHARS))
    return f"- [{label}]({url})" + (f": {text}" if text else "")


def _cut(text: str, limit: int) -> str:
    text = one_line(text)
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + " …"


def _ranked_modules(data: SiteData) -> list[str]:
    """Most depended upon first, then the biggest; by name when equal."""
    modules = data.hierarchy.modules
    return sorted(modules, key=lambda name: (-len(modules[name].used_by), -modules[name].lines, name))


def _ranked_files(data: SiteData) -> list[str]:
    """The project's own files before tests, fixtures, examples, vendored and generated
    code; among them, public files before private ones (`_compat.py`, `_internal/x.py`),
    then the most called from other files first, then those with the most public
    definitions, then the biggest; by path when equal."""
    calls_in: Counter[str] = Counter()
    path_of = {document.chunk.id: document.chunk.path for document in data.documents}
    for document in data.documents:
        callee_path = document.chunk.path
        calls_in[callee_path] += sum(1 for caller in document.metadata.callers if path_of.get(caller, callee_path) != callee_path)
    files = data.hierarchy.files

    def rank(path: str) -> tuple:
        summary = files[path]
        return (summary.file_role != FileRole.SOURCE, _private(path), -calls_in[path], -len(summary.public_api), -summary.lines, path)

    return sorted(files, key=rank)


def _private(path: str) -> bool:
    """A file the naming convention marks internal: it, or a folder holding it, starts with
    one `_` (`__init__.py` and other dunder names are public)."""
    return any(part.startswith("_") and not (part.startswith("__") and part.split(".")[0].endswith("__")) for part in path.split("/"))


def without_front_matter(markdown: str) -> str:
    """A rendered page's Markdown without its YAML front matter (render.front_matter)."""
    if markdown.startswith("---\n"):
        end = markdown.find("\n---\n", 3)
        if end != -1:
            return markdown[end + len("\n---\n") :]
    return markdown


def write_markdown_copies(docs_dir: Path, site_dir: Path) -> int:
    """Copy every page's Markdown from `docs_dir` into `site_dir/md/` at the same path,
    front matter left out; returns how many."""
    target_root = site_dir / MARKDOWN_DIR
    count = 0
    for source in sorted(docs_dir.rglob("*.md")):
        if not source.is_file():
            continue
        target = target_root / source.relative_to(docs_dir)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(without_front_matter(source.read_text(encoding="utf-8")), encoding="utf-8")
        count += 1
    return count


def on_post_build(config, **_: object) -> None:
    """MkDocs' hook after the site is built: the pages' Markdown copies beside it, unless
    `mkdocs.yml` says the site carries none (`extra:`'s `MARKDOWN_COPIES_KEY`)."""
    if (config.get("extra") or {}).get(MARKDOWN_COPIES_KEY, True):
        write_markdown_copies(Path(config["docs_dir"]), Path(config["site_dir"]))
