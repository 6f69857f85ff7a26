"""Site stage: the MkDocs project around the rendered pages, and its build by the engine
refdoc.yml's `engine` names: MkDocs with Material (the default), or Zensical, which reads
the same `mkdocs.yml` (zensical_site.py).

`mkdocs.yml` comes from `mkdocs.yml.template`, its navigation titled in the configured
language. Every asset is local: Material's web fonts are off, and Mermaid diagrams are
drawn only when a local Mermaid script is available (else they show as text), so a
published site requests nothing from another host. The theme override loads that script
only on a page that draws a diagram.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment, StrictUndefined

from ..core.config import ENGINES
from ..core.errors import SiteBuildError
from ..core.records import Hierarchy
from ..core.resources import mkdocs_template, templates_dir
from ..core.trust import is_inside
from .assets import classic_refusal, module_chunk_refusal, module_entry_refusal, repository_file_refusal
from .llms import MARKDOWN_COPIES_KEY
from .nav import module_nav_yaml
from .page_reuse import DirtyWarningFilter, PageReuse
from .page_weight import HOOK_SOURCE
from .render import html_text, page_labels, yaml_string
from .stamp import COMMIT_DATE_KEY
from .zensical_site import ZENSICAL, build_with_zensical, zensical_assets

THEMES = dict(zip(ENGINES, ("material", "zensical")))
"""Each engine's theme override under templates/; templates/shared/ goes into both."""
HOOK_FILE = "hooks/refdoc_pages.py"
"""Relative to the MkDocs project; `mkdocs.yml.template` names it under `hooks:`."""
MERMAID_ENV = "REFDOC_MERMAID_JS"
ASK_SCRIPT = "assets/refdoc/refdoc-ask.js"
"""The Ask panel (templates/shared/refdoc-ask.js), for either engine: the page script both
theme overrides load (`PAGE_FILES`) loads it only on a page that `refdoc-site serve` sent."""
PAGE_FILES = ("assets/refdoc/refdoc-page.js", "assets/refdoc/refdoc-page.css")
"""What every page runs and draws beyond the theme (templates/shared/): one script and one
stylesheet the browser fetches once, not 5.5 KB inline on each of a site's pages."""
MERMAID_ASSET = "assets/javascripts/mermaid.min.js"
MERMAID_MODULE = Path("mermaid.esm.min.mjs")
MERMAID_MODULE_CHUNKS = Path("chunks/mermaid.esm.min")
"""Mermaid's module build, beside `mermaid.min.js` in its `dist/`: a small entry that
imports only the parts a diagram needs (a flowchart: ~240 KB gzipped, not ~1 MB)."""
MERMAID_MODULE_DIR = "assets/javascripts/mermaid"
MERMAID_DIAGRAMS = ("flowDiagram-", "sequenceDiagram-")
"""The diagram kinds a page may draw (render.py's `diagram` filter: flowcharts and sequence
diagrams), as the module entry's loaders name their chunks: the entry's loaders of the
other kinds (gantt, C4, mind maps… 40 of them) and what only they reach are not published
(django's site: 3.5 of Mermaid's MB)."""
MERMAID_MODULE_BYTES = 8_000_000
"""Larger than any file of Mermaid's module build (its largest chunk: 0.7 MB)."""
MODULE_IMPORT = re.compile(r"""(?:\bfrom|\bimport)\s*(\(\s*)?["'](\.{1,2}/[^"'\s]+\.mjs)["']""")
"""A module's import of another of its folder: `from"./x.mjs"`, `import"./x.mjs"`, or a
loader's `import("./x.mjs")` (group 1 says which)."""
REPOSITORY_MERMAID = Path("node_modules/mermaid/dist/mermaid.min.js")
"""The repository's own copy, relative to its root."""
CACHED_MERMAID = Path.home() / ".cache/refdoc-site/node_modules/mermaid/dist/mermaid.min.js"
"""Where scripts/site.sh installs Mermaid for the operator."""

log = logging.getLogger("refdoc_site")


@dataclass(frozen=True)
class MermaidScript:
    """The `mermaid.min.js` the site ships, and whose it is."""

    path: Path
    repository: Path | None = None
    """The repository it is a file of, when it is the repository's rather than the operator's:
    every file published with it (the module build beside it) passes assets.py's rules too."""
    store: Path | None = None


def find_mermaid(repo: Path, configured: str, *, trusted: bool = True, store: Path | None = None) -> MermaidScript | None:
    """The local `mermaid.min.js` to publish: refdoc.yml's `mermaid_js` (relative to the
    repository; trust.py drops it unless trusted), REFDOC_MERMAID_JS, the repository's
    node_modules (only when `trusted`), or the operator's cache.

    The repository's copies pass assets.py's rules (no secret-named, git-ignored, `.git`
    or store file; Mermaid's size and words), each refused in one warning; its node_modules
    copy must also resolve inside it. The operator's copies are taken as they are.
    """
    repository_copies = [repo / configured] if configured else []
    operators = [Path(os.environ[MERMAID_ENV])] if os.environ.get(MERMAID_ENV) else []
    node_copy = repo / REPOSITORY_MERMAID
    if trusted and node_copy.is_file():
        if is_inside(repo, node_copy):
            repository_copies.append(node_copy)
        else:
            _refuse_once(node_copy, "it resolves outside the repository, and only the repository's own files are published")
    candidates = [
        *[MermaidScript(path, repo, store) for path in repository_copies[:1]],
        *[MermaidScript(path) for path in operators],
        *[MermaidScript(path, repo, store) for path in repository_copies[1:]],
        MermaidScript(CACHED_MERMAID),
    ]
    return next((c for c in candidates if c.path.is_file() and _acceptable(c)), None)


def _acceptable(script: MermaidScript) -> bool:
    """Whether the script may be published: the operator's always, the repository's when
    assets.py's rules let it (else one warning)."""
    if script.repository is None:
        return True
    refusal = repository_file_refusal(script.repository, script.path, script.store) or classic_refusal(script.path)
    if refusal:
        _refuse_once(script.path, refusal)
    return not refusal


@functools.cache
def _refuse_once(script: Path, reason: str) -> None:
    """One warning per file and process: the render phase looks for Mermaid more than once."""
    log.warning("%s: ignored as the Mermaid script: %s; name the operator's copy in %s instead", script, reason, MERMAID_ENV)


def write_project(
    project_dir: Path,
    site_dir: Path,
    *,
    site_name: str,
    site_url: str,
    language: str,
    modules: list[tuple[str, str]],
    mermaid_script: MermaidScript | None,
    plans: list[tuple[str, str]] = (),
    build_stamp: str = "",
    commit_date: str = "",
    engine: str = "mkdocs",
    hierarchy: Hierarchy | None = None,
    markdown_copies: bool = True,
    report: dict[str, str] | None = None,
) -> Path:
    """Write `mkdocs.yml` (and local assets) next to the rendered `docs/`.

    `site_dir` is written relative to the project (MkDocs reads it so), and `build_stamp`
    (stamp.py) is the footer: no path or time of the building machine is in the file.
    The file is the same for both engines; `overrides/` holds the `engine`'s theme override.
    `hierarchy`'s components group a folder of too many modules in the navigation (nav.py);
    `markdown_copies` says whether the hook writes the pages' Markdown copies (llms.py);
    `report`, the new-issue form of the "This is wrong" links (stamp.py's `issue_form`).
    """
    docs_dir = project_dir / "docs"
    overrides = project_dir / "overrides"
    if overrides.exists():
        shutil.rmtree(overrides)
    for theme in ("shared", THEMES[engine]):
        target = overrides / ("partials" if theme == "shared" else "")
        shutil.copytree(templates_dir() / theme, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.js", "*.css"))
    if engine == ZENSICAL:
        zensical_assets(docs_dir)
    for asset in (ASK_SCRIPT, *PAGE_FILES):
        (docs_dir / asset).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(templates_dir() / "shared" / Path(asset).name, docs_dir / asset)
    hook = project_dir / HOOK_FILE
    shutil.rmtree(hook.parent, ignore_errors=True)  # MkDocs runs the hooks mkdocs.yml names: only ours lie there
    hook.parent.mkdir()
    hook.write_text(HOOK_SOURCE, encoding="utf-8")
    mermaid_asset = _publish_mermaid(mermaid_script, docs_dir) if mermaid_script is not None else ""
    environment = Environment(undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    environment.filters.update(html_text=html_text, yaml_string=yaml_string)
    template = environment.from_string(mkdocs_template().read_text(encoding="utf-8"))
    labels = page_labels(language)
    config_path = project_dir / "mkdocs.yml"
    config_path.write_text(
        template.render(
            site_name=site_name,
            site_url=site_url,
            site_dir=os.path.relpath(site_dir.resolve(), project_dir.resolve()),
            language=language,
            t=labels,
            module_nav=module_nav_yaml(modules, labels, indent=4, hierarchy=hierarchy),
            plans=plans,
            mermaid_asset=mermaid_asset,
            hook_file=HOOK_FILE,
            build_stamp=build_stamp,
            commit_date=commit_date,
            commit_date_key=COMMIT_DATE_KEY,
            markdown_copies=markdown_copies,
            markdown_copies_key=MARKDOWN_COPIES_KEY,
            report=report or {},
        ),
        encoding="utf-8",
    )
    return config_path


def _publish_mermaid(script: MermaidScript, docs_dir: Path) -> str:
    """Copy Mermaid into the site; returns the asset the theme override loads.

    The module build is preferred when it sits beside the script (links resolved); only
    its files that resolve inside that folder are copied, without source maps: a link
    could point out of the repository. The repository's module build is used only when its
    entry looks like Mermaid's, and only its chunks that pass assets.py's rules are copied.
    """
    dist = Path(os.path.realpath(script.path)).parent
    entry = dist / MERMAID_MODULE
    checked = script.repository is not None
    if (
        entry.is_file() and is_inside(dist, entry) and (dist / MERMAID_MODULE_CHUNKS).is_dir()
        and not (checked and (module_entry_refusal(entry) or repository_file_refusal(script.repository, entry, script.store)))
    ):
        target = docs_dir / MERMAID_MODULE_DIR
        for source in mermaid_modules(entry, dist) or [entry, *sorted((dist / MERMAID_MODULE_CHUNKS).rglob("*.mjs"))]:
            if not source.is_file() or not is_inside(dist, source):
                continue
            if checked and (module_chunk_refusal(source) or repository_file_refusal(script.repository, source, script.store)):
                continue
            destination = target / source.relative_to(dist)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination)
        return f"{MERMAID_MODULE_DIR}/{MERMAID_MODULE}"
    target = docs_dir / MERMAID_ASSET
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(script.path, target)
    return MERMAID_ASSET


def mermaid_modules(entry: Path, dist: Path) -> list[Path] | None:
    """The files of Mermaid's module build that a page drawing `MERMAID_DIAGRAMS` can load:
    the entry, what it imports, the loaders of those kinds, and everything any of these
    import in turn (statically or on demand: a layout, KaTeX), in path order. A module
    outside `dist` is neither read nor listed (it is never published). None, so that every
    chunk is considered as before, when an import names a file that is not there or is
    larger than any of Mermaid's (a build laid out otherwise than this reading expects)."""
    found: set[Path] = set()
    pending = [entry]
    while pending:
        module = pending.pop()
        if module in found or not is_inside(dist, module):
            continue
        if not module.is_file() or module.stat().st_size > MERMAID_MODULE_BYTES:
            return None
        found.add(module)
        for imported in MODULE_IMPORT.finditer(module.read_text(encoding="utf-8", errors="replace")):
            name = imported[2]
            if module == entry and imported[1] is not None and not Path(name).name.startswith(MERMAID_DIAGRAMS):
                continue
            pending.append(Path(os.path.normpath(module.parent / name)))
    return sorted(found)


def build_site(config_path: Path, site_dir: Path | None = None, engine: str = "mkdocs", *, reuse: bool = False) -> None:
    """Run `mkdocs build --strict` in this process (or Zensical's build, zensical_site.py);
    a warning fails the build.

    `site_dir` overrides `mkdocs.yml`'s: the publish step builds into a folder it made.
    With `reuse` (only into a new, empty `site_dir`), MkDocs converts only the pages whose
    Markdown changed since the last build and takes the rest from it (page_reuse.py).
    """
    if engine == ZENSICAL:
        build_with_zensical(config_path, site_dir)
        return
    # lazy: mkdocs takes ~0.15 s to import; only the site phase runs it
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, ConfigurationError

    logger = logging.getLogger("mkdocs")
    collector = _WarningCollector()
    logger.addHandler(collector)
    dirty = DirtyWarningFilter()
    logging.getLogger("mkdocs.commands.build").addFilter(dirty)
    try:
        overrides = {"site_dir": str(site_dir)} if site_dir is not None else {}
        config = load_config(config_file=str(config_path), strict=True, **overrides)
        reused = PageReuse(config_path.parent) if reuse else None
        if reused is not None:
            config.plugins["refdoc-page-reuse"] = reused
        build(config, dirty=reused is not None)
        if reused is not None:
            reused.save(config)
    except (Abort, ConfigurationError) as error:
        detail = "; ".join(collector.messages[:3]) or str(error)
        raise SiteBuildError(f"{config_path}: mkdocs build --strict failed: {detail}") from None
    finally:
        logger.removeHandler(collector)
        logging.getLogger("mkdocs.commands.build").removeFilter(dirty)


class _WarningCollector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())
