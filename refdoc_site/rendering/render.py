"""Render stage: stored records → Markdown pages of an MkDocs project, through Jinja.

Rendering reads the store only (documents, hierarchy, graph, evidence); it never calls a
provider, so the same store always renders the same pages. Text that comes from the code
goes through the `text` filter (HTML and Markdown escaped) or into code spans and fences
sized so that the code cannot close them. Names that become a page's title (a file's path,
a module's or a plan's name) are also set in the page's front matter, HTML-escaped:
Material prints titles as HTML, and one taken from the heading loses its escaping on the
way into `<title>`. Diagram labels use Mermaid's entity codes; URLs from the configuration
are percent-encoded where they become link targets.
"""

from __future__ import annotations

import gzip
import html
import json
import posixpath
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import chain
from pathlib import Path
from urllib.parse import quote

import yaml
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from ..core.findings import Decision, Facts, Milestone
from ..core.pages import SYSTEM_PAGE, chunk_anchor, component_page, file_page, module_page, plan_page
from ..core.records import Component, ComponentKind, Document, FileSummary, Hierarchy
from ..core.resources import DEFAULT_LANGUAGE, Labels, page_labels, templates_dir  # noqa: F401 (re-exported)
from ..core.serial import to_json
from ..core.text import deceptive_characters
from ..understanding.components import SYSTEM_ID, module_id
from ..understanding.graph import RepoGraph
from ..understanding.orientation import Orientation
from ..writing.docstring_links import DocstringNames
from ..writing.docstrings import Docstring, parse_docstring
from ..writing.grounding import Grounded
from ..writing.links import Link
from ..writing.names import NameIndex
from ..writing.sections import PageSection, page_sections
from ..writing.written import Plan, PlanChunk, WrittenDecisions, WrittenMilestones, WrittenOverview
from .component_map import SiteMaps
from .corrected import CorrectionView, correct_sections, for_definition, maintainer_box, plain
from .doc_markdown import PROSE_LANGUAGES, DocPage, doc_page, docstring_admonition, rst_labels
from .markup import _escape_inline, _fenced, code_fence, code_span, escape_text, link_target, one_line  # noqa: F401 (re-exported)
from .overview import overview_context
from .grounded_text import grounded_markdown, shown_label
from .page_meta import page_description
from .summary_parts import SummaryPart, site_summary_parts


@dataclass
class SiteData:
    """Everything the pages are rendered from, read from the store."""

    site_name: str
    documents: list[Document]
    hierarchy: Hierarchy
    graph: RepoGraph
    decisions: list[Decision] = field(default_factory=list)
    milestones: list[Milestone] = field(default_factory=list)
    orientation: Orientation = field(default_factory=Orientation)
    """The overview's four answers (understanding/orientation.py)."""
    stats: Facts = field(default_factory=Facts)
    repo_url: str = ""
    commit: str = ""
    mermaid: bool = False
    """Whether a local Mermaid script ships with the site; else diagrams show as text."""
    written: dict[str, WrittenOverview | WrittenDecisions | WrittenMilestones] = field(default_factory=dict)
    """Pages the doc model wrote (writers.py), grounded: `decisions`, `milestones`; absent
    ones render offline."""
    plans: list[Plan] = field(default_factory=list)
    """Plans for queries (`refdoc-site plan`, `plans:` in refdoc.yml), by slug."""
    language: str = "en"
    """Language of the pages' headings and fixed texts (`templates/labels/`)."""
    publish_source: bool = True
    """False: file pages show no code (refdoc.yml's `publish_source`)."""
    corrections: dict[str, CorrectionView] = field(default_factory=dict)
    """The maintainers' corrections by `kind:target`, as applied (corrected.py)."""
    changes: bool = False
    """A build with `--base`: the overview links its "What changed" page (changes.py), which
    is in no navigation, so that a preview's pages share the main site's navigation and
    MkDocs takes them from its last build (page_reuse.py)."""
    map_links_to_sources: bool = False
    """True: the maps' SVG links name the pages' Markdown sources, as Markdown links do:
    Zensical rewrites links in raw HTML as it does those (MkDocs leaves them as written,
    so they name the served URLs)."""


RenderedPage = tuple[str, str | None, str]
"""(page path, title, Markdown); the title is None where the page's own heading is fixed
text (the site name shows in the overview's heading)."""


def prose_pages(data: SiteData) -> list[RenderedPage]:
    """The pages written as prose: the overview, decision log, plans and module pages (the
    site's search indexes their sections)."""
    return list(_Pages(data).prose())


def corrected_pages(data: SiteData, wanted: set[str]) -> tuple[dict[str, str], list[CorrectionView]]:
    """The pages in `wanted`, of any kind, rendered with their sections corrected, and the
    section corrections placed on them, with their state (what a build would show)."""
    pages = _Pages(data)
    texts = {page: text for page, _, text in chain(pages.prose(only=wanted), pages.reference(only=wanted))}
    return texts, list(pages.sections_placed.values())


def render_pages(data: SiteData, docs_dir: Path, prose: list[RenderedPage] | None = None) -> list[str]:
    """Write every page under `docs_dir`; returns the page paths written, sorted. The prose
    pages are rendered here unless given (already rendered by `prose_pages`)."""
    pages = _Pages(data)
    written = []
    for page, title, text in chain(pages.prose() if prose is None else prose, pages.reference()):
        write_page(docs_dir, page, title, text)
        written.append(page)
    write_hierarchy(data, docs_dir)
    return sorted(written)


def source_commit(commit: str) -> str:
    """How a source link names its commit (`source_url`): what a page's links change by
    from one commit to the next (incremental.py, page_reuse.py)."""
    return f"/blob/{quote(commit)}/"


def write_page(docs_dir: Path, page: str, title: str | None, text: str) -> bool:
    """Write a page's file unless it already holds these bytes; returns whether it wrote."""
    target = docs_dir / page
    content = page_file(title, text).encode("utf-8")
    if target.is_file() and target.read_bytes() == content:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content)
    return True


HIERARCHY_JSON = "summaries/hierarchy.json.gz"
"""The summaries as gzipped JSON, in `docs/`: for a program, no page reads it."""


def write_hierarchy(data: SiteData, docs_dir: Path) -> None:
    """The summaries as JSON beside their pages, without indentation (an indented copy was an
    eighth more: 2.8 MB on django), gzipped with no time stamp (the same summaries, the same
    bytes): homeassistant's is 27.4 MB as JSON, 2.4 MB gzipped, and nothing in the site
    grows faster with the code."""
    hierarchy_json = docs_dir / HIERARCHY_JSON
    hierarchy_json.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(to_json(data.hierarchy), ensure_ascii=False, separators=(",", ":"))
    hierarchy_json.write_bytes(gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0))


class _Pages:
    def __init__(self, data: SiteData) -> None:
        self.data = data
        self.env = _environment()
        self.by_path: dict[str, list[Document]] = defaultdict(list)
        for document in data.documents:
            self.by_path[document.chunk.path].append(document)
        self.by_id = {d.chunk.id: d for d in data.documents}
        self.sections_placed: dict[str, CorrectionView] = {}
        """The section corrections the pages rendered so far placed, with their state."""

    def prose(self, skip: frozenset[str] | set[str] = frozenset(), only: set[str] | None = None) -> Iterator[RenderedPage]:
        """The prose pages in the site's order (those in `only`, when given), their sections
        corrected; a module page in `skip` comes without its text ("")."""
        for page, title, text in self._prose():
            if only is None or page in only:
                yield self.corrected(page, title, "" if page in skip else text())

    def reference(self, skip: frozenset[str] | set[str] = frozenset(), only: set[str] | None = None) -> Iterator[RenderedPage]:
        """The summaries, the file and component pages, but those in `skip` (those in `only`,
        when given), their sections corrected."""
        for page, title, text in self._reference():
            if page not in skip and (only is None or page in only):
                yield self.corrected(page, title, text())

    def corrected(self, page: str, title: str | None, text: str) -> RenderedPage:
        """A page with its section corrections applied (corrected.py): every page kind
        passes here on its way to its file, the search data and `refdoc-site correct`."""
        text, placed = correct_sections(page, text, self.data.corrections, self.labels, self.data.commit)
        self.sections_placed.update({view.correction.key: view for view in placed})
        return page, title, text

    def _prose(self) -> Iterator[tuple[str, str | None, Callable[[], str]]]:
        data = self.data
        yield "index.md", None, lambda: self.render("index.md.jinja2", "index.md", **self.map_context(SYSTEM_ID))
        yield "decisions.md", None, lambda: self.written_or_offline("decisions", "decisions.md.jinja2", "decisions.md")
        yield "plans/milestones.md", None, lambda: self.written_or_offline("milestones", "milestones.md.jinja2", "plans/milestones.md")
        for plan in data.plans:
            page = plan_page(plan.slug)
            yield page, f"{self.labels['plan']}: {plan.query}", lambda page=page, plan=plan: self.render("written/plan.md.jinja2", page, plan=plan)
        for name, module in sorted(data.hierarchy.modules.items()):
            page = module_page(name)
            yield page, fill(self.labels["module_title"], name=name), lambda page=page, name=name, module=module: self.render(
                "module.md.jinja2", page, module=module, **self.map_context(module_id(name))
            )

    def _reference(self) -> Iterator[tuple[str, str | None, Callable[[], str]]]:
        data = self.data
        for page in ("summaries/system.md", "summaries/modules.md", "summaries/files.md"):
            parts = self.summary_parts.get(page, [])
            yield page, None, lambda page=page, parts=parts: self.render(f"{page}.jinja2", page, parts=parts, part=None)
            for part in parts:
                yield part.page, None, lambda page=page, part=part: self.render(f"{page}.jinja2", part.page, parts=[], part=part)
        for path, summary in sorted(data.hierarchy.files.items()):
            yield file_page(path), path, lambda path=path, summary=summary: self.file_text(path, summary)
        for page, component in self.maps.pages():
            title = self.component_title(component)
            yield page, title, lambda page=page, component=component, title=title: self.render(
                "component.md.jinja2", page, component=component, page_title=title, **self.map_context(component.id)
            )

    @cached_property
    def summary_parts(self) -> dict[str, list[SummaryPart]]:
        return site_summary_parts(self.data.hierarchy)

    def file_text(self, path: str, summary: FileSummary) -> str:
        page = file_page(path)
        sections = page_sections(self.by_path.get(path, []))
        if summary.language in PROSE_LANGUAGES:
            return self.render("doc.md.jinja2", page, file=summary, doc=self.doc_page(path, sections, page))
        return self.render("file.md.jinja2", page, file=summary, sections=sections)

    def doc_page(self, path: str, sections: list[PageSection], page: str) -> DocPage:
        """A prose doc's sections as Markdown (doc_markdown.py), its links resolved from `page`."""
        here = posixpath.dirname(page) or "."

        def name_url(section: PageSection) -> Callable[[str], str]:
            def url(name: str) -> str:
                target = self.docstring_names.target(name, section.chunk.symbol, path)
                return _relative_url(target.page, here) + (f"#{target.anchor}" if target.anchor else "") if target and self.exists(target.page, target.anchor) else ""

            return url

        def link(target_page: str, anchor: str) -> str:
            return _relative_url(target_page, here) + (f"#{anchor}" if anchor else "")

        return doc_page(path, sections, self.anchors, self.doc_paths, self.doc_labels, link, name_url, self.labels["directives"], self.data.publish_source)

    @cached_property
    def doc_paths(self) -> dict[str, str]:
        """Each prose doc by its path without the suffix, for `:doc:` links."""
        return {path.rsplit(".", 1)[0]: path for path, entry in self.data.hierarchy.files.items() if entry.language in PROSE_LANGUAGES}

    @cached_property
    def doc_labels(self) -> dict[str, tuple[str, str, str]]:
        """Every reST label of the site's docs, for `:ref:` links."""
        found: dict[str, tuple[str, str, str]] = {}
        for path in sorted(self.doc_paths.values()):
            if path.endswith(".rst"):
                for label, place in rst_labels(path, [d.chunk for d in self.by_path.get(path, [])]).items():
                    found.setdefault(label, place)
        return found

    @property
    def labels(self) -> Labels:
        return page_labels(self.data.language)

    def written_or_offline(self, name: str, offline_template: str, page: str) -> str:
        written = self.data.written.get(name)
        if written is None:
            return self.render(offline_template, page)
        return self.render(f"written/{offline_template}", page, written=written)

    @cached_property
    def anchors(self) -> dict[str, set[str]]:
        """Every page of the site that written pages link to, with the chunk anchors on it."""
        pages: dict[str, set[str]] = {SYSTEM_PAGE: set()}
        pages.update((module_page(name), set()) for name in self.data.hierarchy.modules)
        pages.update((file_page(path), set()) for path in self.data.hierarchy.files)
        for document in self.data.documents:
            chunk = document.chunk
            pages.setdefault(file_page(chunk.path), set()).add(chunk_anchor(chunk.symbol))
        return pages

    @cached_property
    def docstring_names(self) -> DocstringNames:
        return DocstringNames(NameIndex(self.data.documents, self.data.hierarchy))

    def exists(self, page: str, anchor: str = "") -> bool:
        """Whether a stored link still points into this site: a plan written before the code
        changed may name a chunk that is gone; its link is then shown as text."""
        return page in self.anchors and (not anchor or anchor in self.anchors[page])

    def render(self, template: str, page: str, **context) -> str:
        here = posixpath.dirname(page) or "."

        def link(target_page: str, anchor: str = "") -> str:
            return _relative_url(target_page, here) + (f"#{anchor}" if anchor else "")

        def url(target: Link | PlanChunk) -> str | None:
            """A stored link's URL from here, or None when its page or anchor is not in this site."""
            return link(target.page, target.anchor) if self.exists(target.page, target.anchor) else None

        def cite_link(item: Link | PlanChunk, shown: str = "") -> str:
            label = code_span(shown) if shown else escape_text(shown_label(item, self.labels))
            address = url(item)
            return f"[{label}]({address})" if address else label

        def grounded(segments: Grounded, links: bool = True) -> str:
            return grounded_markdown(segments, url if links else None, self.labels)

        def chunk_link(chunk_id: str) -> str:
            document = self.by_id.get(chunk_id)
            if document is None:
                return ""
            chunk = document.chunk
            return link(file_page(chunk.path), chunk_anchor(chunk.symbol))

        def name_url(name: str, symbol: str, path: str) -> str:
            """The link of a code name in `symbol`'s docstring, or "" where it names nothing here."""
            target = self.docstring_names.target(name, symbol, path) if name else None
            return url(target) or "" if target else ""

        return self.env.get_template(template).render(
            data=self.data,
            t=self.labels,
            page=page,
            link=link,
            chunk_link=chunk_link,
            **overview_context(chunk_link, code_span, self.labels["how_it_works"]),
            name_url=name_url,
            docstring=docstring_parts,
            related=self.related,
            cite_link=cite_link,
            grounded=grounded,
            chunk=lambda chunk_id: self.by_id.get(chunk_id),
            file_page=file_page,
            module_page=module_page,
            component_page=component_page,
            source_url=self.source_url,
            maintainer=lambda path, symbol: maintainer_box(for_definition(self.data.corrections, path, symbol), self.labels),
            decision_box=lambda title: maintainer_box([v for v in [self.data.corrections.get(f"decision:{plain(title) if isinstance(title, list) else title}")] if v], self.labels),
            **context,
        )

    def related(self, chunk_ids: list[str], edges: dict[str, list[str]]) -> list[str]:
        """The definitions a definition's windows call (or are called by), once each (a split
        one by its first window: all share one section), not the definition itself."""
        own = set(chunk_ids)
        shown: dict[tuple[str, str], str] = {}
        for chunk_id in chunk_ids:
            for other in edges.get(chunk_id, []):
                document = self.by_id.get(other)
                if other not in own and document is not None:
                    shown.setdefault((document.chunk.path, document.chunk.symbol), other)
        return list(shown.values())

    def source_url(self, path: str, start: int, end: int) -> str:
        if not self.data.repo_url or not self.data.commit:
            return ""
        base = link_target(self.data.repo_url.rstrip("/"))
        tree_path = self.data.stats.source_prefix + path
        return f"{base}{source_commit(self.data.commit)}{quote(tree_path)}#L{start}-L{end}"

    @cached_property
    def maps(self) -> SiteMaps:
        components = self.data.hierarchy.components
        return SiteMaps(
            components,
            lambda target, here: _relative_url(target, posixpath.dirname(here) or "."),
            self.labels["module_map"],
            self.labels["parts"],
            self.data.map_links_to_sources,
        )

    def map_context(self, component_id: str) -> dict:
        """What a page's map block (`component_map.md.jinja2`) shows: the drawing, else the
        view as a list; nothing for a component without children."""
        return {"map_view": self.maps.view(component_id), "map_svg": self.maps.drawn(component_id)}

    def map_key(self, component_id: str) -> str:
        """What a page's map depends on, for its digest (incremental.py)."""
        view = self.maps.view(component_id)
        return view.key() if view is not None else ""

    def component_title(self, component: Component) -> str:
        """A part's or group's page title: a part by its role, a group under its owner's name."""
        if component.kind is ComponentKind.PART:
            return self.labels["parts"].get(component.name, component.name)
        return f"{component.name}: {component.title}" if component.name else component.title


@lru_cache(maxsize=4096)
def docstring_parts(text: str) -> Docstring:
    """A docstring's prose, tables and examples (writing/docstrings.py), for the file page."""
    return parse_docstring(text)


@lru_cache(maxsize=65536)
def _relative_url(target_page: str, from_directory: str) -> str:
    return quote(posixpath.relpath(target_page, from_directory))


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(templates_dir())),
        autoescape=False,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["text"] = escape_text
    env.filters["deceptive"] = deceptive_characters
    env.filters["inline_text"] = _escape_inline
    env.filters["code"] = code_span
    env.filters["fence"] = code_fence
    env.filters["diagram"] = diagram_block
    env.filters["url"] = link_target
    env.filters["indent_block"] = lambda text, width=4: "\n".join((" " * width + line) if line.strip() else "" for line in text.splitlines())
    env.filters["fill"] = fill
    env.filters["admonition"] = lambda block, labels: docstring_admonition(block.name, block.argument, labels)
    env.filters["plural"] = plural
    return env


def fill(text: str, **values: object) -> str:
    """A table's text with its `{placeholders}` filled: word order is the language's own."""
    return text.format(**values)


def plural(forms: dict[str, str], count: int, **values: object) -> str:
    """A count in words, in the form its language uses for it (`{n} file`, `{n} files`;
    Japanese has one form)."""
    return fill(forms["one" if count == 1 else "other"], n=count, **values)


def diagram_block(source: str, drawn: bool) -> str:
    """A Mermaid diagram's block: drawn by the site's Mermaid script, or shown as its source."""
    return _fenced(source, "mermaid" if drawn else "text")


def page_file(title: str | None, text: str) -> str:
    """A page's file: its front matter (with the description its text gives) and its text."""
    return front_matter(title, page_description(text)) + text


def front_matter(title: str | None, description: str = "") -> str:
    """The page's YAML front matter: out of Material's own index (refdoc-site's search serves
    the box) and, when given, the title and the description as HTML-escaped text (see
    `html_text`: the themes print both as HTML)."""
    lines = ["---", "search:", "  exclude: true"]
    if title is not None:
        lines.append(f"title: {yaml_string(html_text(title))}")
    if description:
        lines.append(f"description: {yaml_string(html_text(description))}")
    return "\n".join([*lines, "---", ""])


def html_text(value: object) -> str:
    """A name as one line of HTML text, for the places Material prints as HTML (titles,
    navigation, site name): whitespace collapsed, control characters shown as U+FFFD."""
    return html.escape(one_line(value), quote=True)


def yaml_string(value: str) -> str:
    """A YAML double-quoted scalar of ASCII characters that loads back as exactly `value`."""
    return yaml.safe_dump(value, default_style='"', allow_unicode=False, width=float("inf")).rstrip("\n")


