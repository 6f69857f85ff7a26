"""The library: everything a question is answered from, opened once from a built store.

`refdoc-site ask`, `serve` and `mcp` share one `Library`: the stored chunks (code and the
repository's Markdown sections) ranked as `refdoc-site query` ranks them, each definition
with its source, summary and call-graph neighbours, the file, module and system summaries,
and the site address of each. It only reads the store; it never writes it, so it needs no
lock and several may be open at once. The repository's corrections (refdoc-corrections.yml)
are applied over what it read, as the pages apply them: an answer shows the summary a
maintainer wrote, never a call a maintainer marked wrong.
"""

from __future__ import annotations

import logging
import re
from dataclasses import asdict, dataclass, field
from functools import cached_property

from ..core.corrections import correct_documents, load_corrections
from ..core.errors import ConfigError, RefdocError
from ..core.pages import SYSTEM_PAGE, chunk_url, file_page, module_page, page_url
from ..core.phrases import localized_documents
from ..core.records import Document, FileSummary, Hierarchy, SystemSummary
from ..core.serial import from_json, to_json
from ..core.workspace import HIERARCHY_NAME, Workspace
from ..search.embed import matching_embedder
from ..search.prose import page_anchor, stored_sections
from ..search.ranking import Hit, QueryEmbedder, SearchIndex
from ..writing.names import NameIndex
from ..writing.sections import whole_source

log = logging.getLogger("refdoc_site")


@dataclass(frozen=True)
class Definition:
    """One definition (or Markdown section) of the repository as the store holds it: its
    windows, if it was split, joined back into one record."""

    id: str
    """`path#Qualified.name`, without a window's or an overload's suffix (`definition_key`)."""
    path: str
    symbol: str
    name: str
    kind: str
    language: str
    start_line: int
    """1-based, of its first window (or overload stub)."""
    end_line: int
    """1-based, inclusive, of its last window: the whole definition, as its section on the site."""
    signature: str
    source: str
    """The chunk's text (a class's body has its members' bodies elided)."""
    docstring: str
    summary: dict
    """`responsibility`, `inputOutput`, `sideEffects`, `mainDependencies`, `notes`, `source`."""
    callers: list[str] = field(default_factory=list)
    """Ids of the definitions that call this one."""
    callees: list[str] = field(default_factory=list)
    """Ids of the definitions it calls (resolved by the summarize phase)."""
    imports: list[str] = field(default_factory=list)
    is_async: bool = False
    throws: bool = False
    """It raises or throws, in any of its windows."""
    security_boundary: str = ""
    effects: list[str] = field(default_factory=list)
    url: str = ""
    """Site-relative URL of its section: `files/src/app.py/#chunk-App-run`."""

    def to_dict(self) -> dict:
        return asdict(self)


class Library:
    """The store's chunks, graph and summaries, ready to search and to read."""

    def __init__(self, workspace: Workspace, documents: list[Document], hierarchy: Hierarchy | None,
                 search_index: SearchIndex, embedder: QueryEmbedder | None) -> None:
        self.workspace = workspace
        self.documents = documents
        self.hierarchy = hierarchy
        self.search_index = search_index
        self.embedder = embedder
        self._windows: dict[str, list[Document]] = {}
        for document in documents:
            self._windows.setdefault(definition_id(document), []).append(document)
        for windows in self._windows.values():
            windows.sort(key=lambda d: (d.chunk.start_line, d.chunk.part))
        self._positions = {d.chunk.id: position for position, d in enumerate(search_index.documents)}
        self._by_symbol: dict[str, list[str]] = {}
        self._by_name: dict[str, list[str]] = {}
        for key, windows in self._windows.items():
            chunk = windows[0].chunk
            self._by_symbol.setdefault(chunk.symbol, []).append(key)
            self._by_name.setdefault(chunk.name or chunk.symbol.rsplit(".", 1)[-1], []).append(key)

    @classmethod
    def open(cls, workspace: Workspace) -> Library:
        """The workspace's store, read once; a one-line error when it holds no chunks."""
        state = workspace.load_state()
        if not state.documents:
            raise RefdocError(f"{workspace.store.index_path}: no indexed chunks; run `refdoc-site build` first")
        apply_repository_corrections(workspace, state.documents)
        documents = localized_documents(state.documents, workspace.config.language)  # answers say the summaries as the site does
        hierarchy = None
        if (workspace.store_dir / HIERARCHY_NAME).exists():
            hierarchy = from_json(Hierarchy, workspace.store.read_json(HIERARCHY_NAME))
        return cls(workspace, documents, hierarchy, SearchIndex.build(documents), matching_embedder(state))

    @cached_property
    def names(self) -> NameIndex:
        """The names an answer may mention (the written pages' grounding checks them against it)."""
        hierarchy = self.hierarchy or Hierarchy(SystemSummary("", [], [], {}), {}, {})
        return NameIndex(self.documents, hierarchy)

    # --- search ---------------------------------------------------------------------------

    def search(self, text: str, top: int = 10) -> list[Hit]:
        """The fused ranking over code chunks and Markdown sections: what an answer is made
        from (the rendered pages are made from these, and their generic sentences, "depends
        on no other module", matched questions about nothing in the repository)."""
        return self.search_index.search(text, top, "fused", self.embedder)

    @cached_property
    def sections(self) -> list[Document]:
        """The prose pages' sections the last render gave the site's search, read when first
        asked for (`site_search`): `ask` and `serve` never need them."""
        return stored_sections(self.workspace.store, with_vectors=self.embedder is not None)

    @cached_property
    def site_search_index(self) -> SearchIndex:
        """The site's search: the chunks and the prose pages' sections, as `query` ranks them."""
        return SearchIndex.build(self.documents + self.sections)

    def site_search(self, text: str, top: int = 10) -> list[Hit]:
        """The site's ranking of `text` (its pages included): the `mcp` search tool's."""
        return self.site_search_index.search(text, top, "fused", self.embedder)

    def position(self, chunk_id: str) -> int | None:
        """Where a chunk sits in the search index (its row of vectors)."""
        return self._positions.get(chunk_id)

    # --- definitions ------------------------------------------------------------------------

    def matches(self, ref: str) -> list[str]:
        """Ids of the definitions `ref` names: a chunk id (a window's too), a qualified name,
        or a short name; several when a name is ambiguous."""
        ref = ref.strip()
        if ref in self._windows:
            return [ref]
        base = definition_key(ref)
        if base in self._windows:
            return [base]
        return list(self._by_symbol.get(ref) or self._by_name.get(ref) or [])

    def definition(self, ref: str) -> Definition | None:
        """The definition `ref` names when exactly one matches, else None."""
        found = self.matches(ref)
        return self._definition(found[0]) if len(found) == 1 else None

    def callers(self, ref: str) -> list[Definition]:
        definition = self.definition(ref)
        return self.definitions(definition.callers) if definition else []

    def callees(self, ref: str) -> list[Definition]:
        definition = self.definition(ref)
        return self.definitions(definition.callees) if definition else []

    def document(self, chunk_id: str) -> Document | None:
        """The stored chunk that stands for the definition of this id: of its windows or
        overloads, the first with a summary (an `@overload` stub has none), else the first."""
        found = self.matches(chunk_id) if "#" in chunk_id else []
        return _representative(self._windows[found[0]]) if found else None

    def definitions(self, ids: list[str]) -> list[Definition]:
        out = []
        for key in dict.fromkeys(definition_key(i) for i in ids):
            if key in self._windows:
                out.append(self._definition(key))
        return out

    def _definition(self, key: str) -> Definition:
        windows = self._windows[key]
        best = _representative(windows)
        chunk, metadata = best.chunk, best.metadata

        def union(name: str) -> list[str]:
            return list(dict.fromkeys(item for d in windows for item in getattr(d.metadata, name)))

        return Definition(
            id=key, path=chunk.path, symbol=chunk.symbol, name=chunk.name, kind=chunk.kind.value,
            language=chunk.language, start_line=min(d.chunk.start_line for d in windows),
            end_line=max(d.chunk.end_line for d in windows),
            signature=chunk.signature, source=whole_source([d.chunk for d in windows]), docstring=chunk.docstring,
            summary=to_json(best.summary),
            callers=[definition_key(i) for i in union("callers")],
            callees=[definition_key(i) for i in union("callees")],
            imports=union("imports"), is_async=metadata.isAsync,
            throws=any(d.metadata.throwsException for d in windows),
            security_boundary=metadata.securityBoundary, effects=union("effects"),
            url=self.page_url(key),
        )

    # --- summaries --------------------------------------------------------------------------

    def modules(self) -> list[str]:
        return sorted(self.hierarchy.modules) if self.hierarchy else []

    def module_summary(self, name: str) -> dict | None:
        module = self.hierarchy.modules.get(name) if self.hierarchy else None
        if module is None:
            return None
        return {**to_json(module), "url": page_url(module_page(name))}

    def file_summary(self, path: str) -> dict | None:
        summary = self.file_record(path)
        return {**to_json(summary), "url": page_url(file_page(path))} if summary else None

    def file_record(self, path: str) -> FileSummary | None:
        return self.hierarchy.files.get(path) if self.hierarchy else None

    def system_summary(self) -> dict:
        """The system summary with its URL; `{}` when the store was indexed but not summarized."""
        if self.hierarchy is None:
            return {}
        return {**to_json(self.hierarchy.system), "url": page_url(SYSTEM_PAGE)}

    # --- addresses --------------------------------------------------------------------------

    @cached_property
    def _sections_by_id(self) -> dict[str, Document]:
        return {section.chunk.id: section for section in self.sections}

    def page_url(self, chunk_id: str) -> str:
        """The site-relative URL of the definition's anchor (of a prose page's section: its
        page and heading), as the site's search links to it."""
        document = self.document(chunk_id)
        if document is not None:
            return chunk_url(document.chunk.path, document.chunk.symbol)
        section = self._sections_by_id.get(chunk_id)  # no chunk's: the pages are read only now
        if section is not None:
            anchor = page_anchor(section)
            return page_url(section.chunk.path) + (f"#{anchor}" if anchor else "")
        path, _, symbol = definition_key(chunk_id).partition("#")
        return chunk_url(path, symbol)


def apply_repository_corrections(workspace: Workspace, documents: list[Document]) -> None:
    """The repository's corrections over the stored chunks, in place and before they are
    indexed for search (a maintainer's summary is found by its words). A file with errors
    is one warning and no correction: a question is still answered; `build` lists them all."""
    name = workspace.config.corrections
    try:
        corrections = load_corrections(workspace.repo / name, name)
    except ConfigError as error:
        more = f" (and {len(error.problems) - 1} more)" if len(error.problems) > 1 else ""
        log.warning("%s%s; no correction is applied until it is fixed", error.problems[0], more)
        return
    correct_documents(documents, corrections)


def definition_id(document: Document) -> str:
    return f"{document.chunk.path}#{document.chunk.symbol}"


CHUNK_ID_SUFFIXES = re.compile(r"(?:~\d+)?(?:@\d+)?$")
"""What indexing (`indexing/chunk.py`) adds to a definition's `path#symbol`: `~N`, the part
of a split definition's window, then `@LINE` when the id is taken already (an `@overload`
stub and its implementation, or a name defined twice in one file)."""


def definition_key(chunk_id: str) -> str:
    """A chunk id without its window's and its overload's suffixes (`a.py#f~2` → `a.py#f`,
    `a.py#C.get@13` → `a.py#C.get`)."""
    head, sep, symbol = chunk_id.partition("#")
    return f"{head}#{CHUNK_ID_SUFFIXES.sub('', symbol, count=1)}" if sep and symbol else chunk_id


def _representative(windows: list[Document]) -> Document:
    """The window or overload whose summary, signature and docstring a definition shows:
    the first with a summary (an `@overload` stub comes first and has none)."""
    return next((d for d in windows if d.summary.responsibility), windows[0])

