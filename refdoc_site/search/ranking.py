"""Hybrid search over the stored chunks: Lunr (BM25 over weighted fields) fused with cosine.

The same ranking runs in the CLI (`refdoc-site query`) and, in JavaScript, in the
published site; `browser/` holds the scripts and the data both sides share (stop words, weights),
and a parity test keeps them in step. The steps:

1. query terms: lower-cased words and identifier parts, stop words dropped, Japanese runs
   as character pairs (japanese.py, the same for the indexed text); a query in
   Japanese first gets the English words of the programming terms it contains
   (`browser/glossary-ja.tsv`), since the code and its summaries are in English, and the
   index's English terms its other katakana words sound like (loanwords.py);
2. sparse: a Lunr query with, per term, an exact clause (through the stemmer), a prefix
   clause and, for longer terms, an edit-distance-1 clause;
3. dense: cosine between the query's vector and every chunk vector;
4. fusion: the sparse score of a description (more English words than `expand_max_terms`)
   scaled by the share of its words the chunk holds (`SparseMatches.covered`); each side's
   scores min-max normalised over its top candidates, then weighted;
   chunks that name no symbol (module rest, Markdown sections, windows) and sections of
   the site's own pages (overview, modules, decisions, plans) weigh less, and so do
   asides (tests, examples, vendored and generated files, release notes: asides.py)
   unless the query asks for them;
5. on equal scores public definitions rank above private (`_x`) and dunder ones; a query
   whose word pairs all occur in a chunk's string literals (an error message pasted in)
   puts those chunks first, the fusion ordering them and everything below them; a query
   that is a definition's name puts the definitions it names before all (`names.py`);
6. chunks of one symbol (windows of a long function) collapse into their best.
"""

from __future__ import annotations

import gc
import json
import re
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from itertools import chain, islice
from pathlib import Path
from typing import Callable, Protocol

import numpy as np

from ..core.records import ChunkKind, Document, vector_rows
from .asides import asks_for_asides, is_aside
from .fusion import fuse, tie_level
from .japanese import JAPANESE_RUN, glossary_words, japanese_terms, with_glossary
from .loanwords import Loanwords
from .lunr_index import compact_index, serialized_index, term_statistics
from .matches import SparseMatches, messages_first, read_matches
from .names import is_public, match_order, name_key, query_name

ASSETS = Path(__file__).parent / "browser"
MAX_QUERY_CHARS = 1000
WORD_RE = re.compile(f"[A-Za-z0-9_]+|{JAPANESE_RUN}")
"""An identifier, or a run of Japanese characters (split into pairs by `japanese_terms`)."""
IDENTIFIER_RE = re.compile(r"[A-Za-z0-9_]+")
"""The ASCII words of `WORD_RE` (its Japanese runs never hold an ASCII character), whose terms are all ASCII."""
CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


@cache
def settings() -> dict:
    """Field boosts, clause boosts and fusion weights shared with the JavaScript side."""
    return json.loads((ASSETS / "settings.json").read_text(encoding="utf-8"))


@cache
def stop_words() -> frozenset[str]:
    return frozenset((ASSETS / "stopwords.txt").read_text(encoding="utf-8").split())


def identifier_parts(word: str) -> list[str]:
    """`parse_HTTPResponse2` → parse, http, response, 2 (lower-cased)."""
    parts = []
    for piece in word.split("_"):
        parts.extend(match.group(0).lower() for match in CAMEL_RE.finditer(piece))
    return parts


def terms(text: str) -> list[str]:
    """Words of a text as the index sees them: each identifier whole and split, lower-cased;
    Japanese as character pairs."""
    return list(chain.from_iterable(map(word_terms, WORD_RE.findall(text))))


@lru_cache(maxsize=200_000)
def word_terms(word: str) -> tuple[str, ...]:
    if not word.isascii():
        return tuple(japanese_terms(word))
    parts = identifier_parts(word)
    return (word.lower(), *parts) if len(parts) > 1 else (word.lower(),)


def query_terms(text: str) -> list[str]:
    """Distinct query terms in order, without stop words and single letters or digits (a
    single kanji is a word)."""
    stop = stop_words()
    return list(dict.fromkeys(t for t in terms(text) if (len(t) > 1 or not t.isascii()) and t not in stop))


@lru_cache(maxsize=200_000)
def stem(term: str) -> str:
    """Lunr's Porter stemmer, the one lunr.js applies to query terms."""
    # lazy: the lunr package serves only queries run in Python (CLI query, eval, plans)
    from lunr.stemmer import stemmer
    from lunr.token import Token

    return str(stemmer(Token(term)))


@lru_cache(maxsize=200_000)
def _word_index_terms(word: str) -> tuple[str, ...]:
    """One word's index terms: whole and split, lower-cased, no stop words, stemmed."""
    stop = stop_words()
    return tuple(stem(term) for term in word_terms(word) if term not in stop)


def index_terms(text: str) -> list[str]:
    """A field's terms as Lunr stores them: split identifiers, no stop words, stemmed."""
    out: list[str] = []
    for word in WORD_RE.findall(text):
        out.extend(_word_index_terms(word))
    return out


# --- what gets indexed --------------------------------------------------------------------


def sparse_fields(document: Document) -> dict[str, list[str]]:
    """The index terms of each sparse field for one chunk.

    Words are split, filtered and stemmed like a query's (queries go through Lunr's
    stemmer); the word pairs of `phrases` are matched as they are, so stay unstemmed.
    The words the model puts near the chunk (`model_words`) join its notes.
    """
    chunk, summary = document.chunk, document.summary
    values = {
        "name": f"{chunk.symbol} {chunk.name}",
        "signature": chunk.signature,
        "responsibility": summary.responsibility,
        "inputOutput": summary.inputOutput,
        "notes": f"{summary.notes} {chunk.docstring} {' '.join(document.model_words)}",
        "body": _body_words(document),
    }
    fields = {name: index_terms(text) for name, text in values.items()}
    fields["phrases"] = _message_phrases(document)
    return fields


TEXT_KINDS = (ChunkKind.SECTION, ChunkKind.WINDOW, ChunkKind.PAGE)
"""Chunks of text rather than code: all their words are indexed, none is a message."""
STRING_RE = re.compile(r'"(?:[^"\\\n]|\\.)*"|' + r"'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`")
PHRASE_WORD_RE = re.compile(r"[a-z0-9]+")


def phrase_terms(text: str) -> list[str]:
    """Pairs of neighbouring words (`no_such`, `such_command`): what finds a quoted message."""
    stop = stop_words()
    words = PHRASE_WORD_RE.findall(text.lower())
    return [f"{a}_{b}" for a, b in zip(words, words[1:]) if a not in stop or b not in stop]


def _message_phrases(document: Document) -> list[str]:
    """Word pairs of the one-line string literals in a chunk's code (messages, not docstrings)."""
    if document.chunk.kind in TEXT_KINDS:
        return []
    pairs: list[str] = []
    for literal in STRING_RE.findall(document.chunk.content):
        pairs.extend(phrase_terms(literal))
    return list(dict.fromkeys(pairs))


def _body_words(document: Document) -> str:
    """Identifiers, string words and Japanese comments of the code, each once: what keyword
    queries quote."""
    if document.chunk.kind in TEXT_KINDS:
        return document.chunk.content
    return " ".join(dict.fromkeys(WORD_RE.findall(document.chunk.content)))


def code_words(document: Document, limit: int | None = None) -> list[str]:
    """The terms of `_body_words`, first use first, the first `limit` only (none past them is
    split), without Japanese pairs: the embedding model reads these words, not the index."""
    found = IDENTIFIER_RE.findall(document.chunk.content)
    words = found if document.chunk.kind in TEXT_KINDS else dict.fromkeys(found)
    return list(islice(chain.from_iterable(map(word_terms, words)), limit))


# --- the index ----------------------------------------------------------------------------


def searchable(documents: list[Document]) -> list[Document]:
    """The documents the index holds: all but the modules with no code of their own."""
    return [d for d in documents if d.chunk.kind is not ChunkKind.MODULE or d.chunk.content.strip()]


def field_terms(document: Document, boosts: dict[str, float]) -> dict[str, list[str]]:
    """The document's index terms in each field of `boosts`."""
    terms_by_field = sparse_fields(document)
    return {name: terms_by_field[name] for name in boosts}


def document_vectors(documents: list[Document]) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The documents' vectors quantised (`quantize_rows`), when every one has a vector."""
    if documents and all(d.embedding for d in documents):
        return quantize_rows(vector_rows([d.embedding for d in documents]))
    return None, None


class QueryEmbedder(Protocol):
    def embed(self, texts: list[str]) -> np.ndarray: ...


@dataclass
class Hit:
    path: str
    symbol: str
    kind: str
    start_line: int
    end_line: int
    score: float
    chunk_id: str
    sparse: float = 0.0
    dense: float = 0.0

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "symbol": self.symbol,
            "kind": self.kind,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "score": round(self.score, 6),
        }


SCORE_DECIMALS = 2
"""Lunr keeps 3 decimals of each term weight; 2 make a smaller index and rank the same."""


def quantize_rows(vectors: np.ndarray, level: int = 127) -> tuple[np.ndarray, np.ndarray]:
    """int8 rows of -level..level, one float32 scale each (row ≈ int8 · scale): what the site ships."""
    vectors = np.asarray(vectors, dtype=np.float32)
    scales = np.abs(vectors).max(axis=1) / float(level) if len(vectors) else np.zeros(0, dtype=np.float32)
    scales[scales == 0] = 1.0
    rows = np.clip(np.rint(vectors / scales[:, None]), -level, level).astype(np.int8)
    return rows, scales.astype(np.float32)


@dataclass
class SearchIndex:
    """Lunr index, quantised chunk vectors and the documents they point at (by position).

    Dense scores use the same int8 rows and scales as the browser, so both rank alike.
    """

    documents: list[Document]
    _serialized: dict | None
    rows: np.ndarray | None = None
    scales: np.ndarray | None = None
    fields: dict[str, float] = field(default_factory=dict)
    compact: dict | None = None
    """The index in the form the site ships (`lunr_index.compact_index`), when asked for."""
    _lunr_index: object | None = field(default=None, repr=False)
    _terms: list[dict[str, list[str]]] | None = field(default=None, repr=False)
    _posting_counts: dict[str, int] | None = field(default=None, repr=False)
    """Each term's postings over the fields: the site's index has them without the serialised form."""
    dense_probe: Callable[[np.ndarray, int], dict[int, float]] | None = field(default=None, repr=False)

    @cached_property
    def serialized(self) -> dict:
        """The Lunr index's serialised form; the site's index makes it only when asked."""
        return self._serialized if self._serialized is not None else serialized_index(self._terms or [], self.fields, decimals=SCORE_DECIMALS)

    @classmethod
    def build(cls, documents: list[Document], fields: dict[str, float] | None = None, for_site: bool = False) -> SearchIndex:
        boosts = fields if fields is not None else settings()["fields"]
        documents = searchable(documents)
        # Terms arrive split, filtered and stemmed (sparse_fields); queries go through Lunr's
        # stemmer, in Python and in lunr.js, which load this same serialised pipeline.
        rows = [field_terms(document, boosts) for document in documents]
        vectors, scales = document_vectors(documents)
        if for_site:  # the site ships the compact form: its counts also give the common terms
            stats = term_statistics(rows, boosts)
            compact = compact_index(rows, boosts, decimals=SCORE_DECIMALS, stats=stats)
            counts = {term: stats.posting_count(term) for term in stats.postings}
            return cls(documents, None, vectors, scales, dict(boosts), compact, _terms=rows, _posting_counts=counts)
        return cls(documents, serialized_index(rows, boosts, decimals=SCORE_DECIMALS), vectors, scales, dict(boosts))

    @cached_property
    def common_terms(self) -> frozenset[str]:
        """Stemmed terms in so many of the chunks' fields that they barely rank anything.

        The sparse side leaves them out of a query: they cost most of a long query's time
        (every posting is scored) for almost no weight. The dense side still reads them.
        Small indexes, where every query is fast anyway, keep all their terms.
        """
        if len(self.documents) < settings()["clauses"]["common_term_min_chunks"]:
            return frozenset()
        share = settings()["clauses"]["common_term_share"]
        fields = list(self.fields)
        limit = share * max(len(self.documents), 1)
        counts = self._posting_counts or {term: sum(len(posting[f]) for f in fields) for term, posting in self.serialized["invertedIndex"]}
        return frozenset(term for term, count in counts.items() if count > limit)

    @cached_property
    def loanwords(self) -> Loanwords:
        """The index's English terms, for the katakana words of a Japanese query."""
        return Loanwords.of([term for term, _ in self.serialized["invertedIndex"]])

    @cached_property
    def asides(self) -> frozenset[int]:
        """Positions of the chunks of tests, examples, release notes… (asides.py)."""
        return frozenset(p for p, d in enumerate(self.documents) if is_aside(d.chunk.path))

    @cached_property
    def definitions_by_name(self) -> dict[str, list[int]]:
        """Positions of the chunks of each definition, by the key of its own (last) name."""
        table: dict[str, list[int]] = {}
        for position, document in enumerate(self.documents):
            table.setdefault(name_key(document.chunk.symbol.rsplit(".", 1)[-1]), []).append(position)
        return table

    @property
    def lunr_index(self):
        """The `lunr` package's index over the serialised form, loaded on first query."""
        if self._lunr_index is None:
            from lunr.index import Index  # lazy: only queries run in Python load the index

            self._lunr_index = Index.load(self.serialized)
            # The loaded index and the documents are long-lived objects by the million: keep
            # the cyclic collector from walking them on every full collection (on django's
            # 13.8k chunks a query's p95 went 707 → 108 ms).
            gc.freeze()
        return self._lunr_index

    @property
    def has_vectors(self) -> bool:
        return self.rows is not None

    def searched_terms(self, text: str) -> list[str]:
        """The query's terms the sparse side searches: all but the index's common ones."""
        common = self.common_terms
        return [term for term in query_terms(text) if stem(term) not in common]

    def question_text(self, text: str) -> str:
        """The text both sides search for a query: a Japanese one with its glossary's English."""
        return with_glossary(text, self.loanwords)

    def sparse_scores(self, text: str, phrase_text: str = "") -> dict[int, float]:
        """Lunr scores by document position for a query text."""
        return self.sparse_matches(text, phrase_text).scores

    def sparse_matches(self, text: str, phrase_text: str = "", alternatives: list[list[str]] | None = None) -> SparseMatches:
        """Lunr scores by document position, with what the fusion reads of which words
        each chunk matched (`SparseMatches`). `text` is the query with the English words
        `alternatives` gave its Japanese words (japanese.glossary_words), `phrase_text` the
        query as typed: a Japanese word counts once in the coverage, held when any of its
        English words is."""
        from lunr.query import Query  # lazy: only queries run in Python need lunr

        wanted = self.searched_terms(text)
        if not wanted:
            return SparseMatches({}, set(), {})
        boosts = settings()["clauses"]
        # Prefix and typo matching help short, identifier-like queries; on long
        # natural-language ones they only add noise (and time). Japanese pairs, many to a
        # word and too short to expand, are not counted.
        expand = sum(term.isascii() for term in wanted) <= boosts["expand_max_terms"]
        words = self._coverage_words(wanted, phrase_text or text, alternatives or [])
        phrases = [p for p in phrase_terms(phrase_text or text)] if "phrases" in self.fields else []

        def build(query: Query) -> None:
            for pair in phrases:
                query.term(pair, boost=boosts["phrase"], use_pipeline=False, fields=["phrases"])
            for term in wanted:
                query.term(term, boost=boosts["exact"])
                if not expand:
                    continue
                if len(term) >= boosts["prefix_min_length"]:
                    query.term(term, boost=boosts["prefix"], use_pipeline=False, wildcard=Query.WILDCARD_TRAILING)
                # Typo matching costs Lunr about the square of the term's length (a
                # 1000-letter one, seconds): a term longer than any word is matched exactly.
                if boosts["fuzzy_min_length"] <= len(term) <= boosts["fuzzy_max_length"]:
                    query.term(term, boost=boosts["fuzzy"], use_pipeline=False, edit_distance=1)

        pairs = phrases if len(set(phrases)) >= boosts["message_min_pairs"] else []
        return read_matches(self.lunr_index.query(callback=build), pairs, [] if expand else words)

    def _coverage_words(self, wanted: list[str], typed: str, alternatives: list[list[str]]) -> list[tuple[str, ...]]:
        """The words coverage counts, each as its stemmed forms: the English words the query
        was typed with, and one for each Japanese word the glossary or the index's terms
        explained (any of its English words holds it)."""
        queried = {stem(term) for term in wanted}
        if not alternatives:
            return [(stemmed,) for stemmed in dict.fromkeys(stem(term) for term in wanted if term.isascii())]
        typed_words = [(stem(term),) for term in query_terms(typed) if term.isascii() and stem(term) in queried]
        explained = [tuple(dict.fromkeys(stem(term) for term in query_terms(" ".join(words)) if stem(term) in queried)) for words in alternatives]
        return list(dict.fromkeys(word for word in typed_words + explained if word))

    def dense_scores(self, query_vector: np.ndarray, positions: list[int] | None = None) -> np.ndarray:
        """The query vector's cosine with every chunk's, or with those at `positions` only."""
        count = len(self.documents) if positions is None else len(positions)
        if self.rows is None:
            return np.zeros(count)
        rows, scales = (self.rows, self.scales) if positions is None else (self.rows[positions], self.scales[positions])
        return (rows.astype(np.float64) @ np.asarray(query_vector, dtype=np.float64)) * scales.astype(np.float64)

    def dense_candidates(self, query_vector: np.ndarray) -> dict[int, float]:
        """The dense side's best chunks, {position: cosine}: of all, or of the clusters a
        large site's query reads (`dense_probe`, see vector_partition)."""
        count = settings()["fusion"]["dense_candidates"]
        if self.dense_probe is not None:
            return self.dense_probe(query_vector, count)
        scores = self.dense_scores(query_vector)
        return {int(i): float(scores[i]) for i in np.lexsort((np.arange(len(scores)), -scores))[:count]}

    def search(self, text: str, top: int = 10, mode: str = "fused", embedder: QueryEmbedder | None = None) -> list[Hit]:
        """Ranked hits, one per symbol; `mode` is `sparse`, `dense` or `fused`."""
        original, alternatives = text, glossary_words(text, self.loanwords)
        text = with_glossary(original, explained=alternatives)
        matches = self.sparse_matches(text, original, alternatives) if mode in ("sparse", "fused") else SparseMatches({}, set(), {})
        sparse = matches.scores
        dense: dict[int, float] = {}
        if mode in ("dense", "fused") and embedder is not None and self.rows is not None:
            dense = self.dense_candidates(embedder.embed([text])[0])
        if mode == "fused":
            weights = dict(settings()["fusion"])
            sparse = matches.covered(weights["coverage_power"])
            combined = self._weigh_kinds(fuse(sparse, dense, weights), query_terms(text))
        else:
            combined = sparse or dense
        order = self._by_score(combined)
        if mode == "fused":
            # A test or example quoting the message or naming the definition does not jump
            # ahead of the code: it keeps its weighed place unless the query asks for it.
            asides = frozenset() if asks_for_asides(query_terms(text), settings()["fusion"]["aside_cues"]) else self.asides
            order = messages_first(matches.messages - asides, order)
            order = self._names_first(original, combined, order, asides)
        return self._collapse(order, combined, sparse, dense, top)

    def _by_score(self, scores: dict[int, float]) -> list[int]:
        """Positions best first; on equal scores (`tie_level`) public definitions before
        private and dunder ones (a tie often is a method and its `__init__` with the same words)."""
        documents = self.documents
        return sorted(scores, key=lambda p: (-tie_level(scores[p]), not is_public(documents[p].chunk.symbol), p))

    def _names_first(self, query: str, combined: dict[int, float], order: list[int], asides: frozenset[int] = frozenset()) -> list[int]:
        """`order` with the definitions a name query names moved to the front (names.py),
        but for those at `asides`; those no side scored join `combined` at 0."""
        name = query_name(query)
        if name is None:
            return order
        named = []
        for position in self.definitions_by_name.get(name_key(name[-1]), []):
            if position in asides:
                continue
            chunk = self.documents[position].chunk
            rank = match_order(name, chunk.symbol, chunk.path, chunk.kind.value)
            if rank is not None:
                named.append((rank, -combined.setdefault(position, 0.0), position))
        first = [position for *_, position in sorted(named)]
        moved = set(first)
        return first + [position for position in order if position not in moved]

    def _weigh_kinds(self, scores: dict[int, float], terms: list[str]) -> dict[int, float]:
        """Chunks that name no symbol (a file's top-level rest, Markdown sections, windows)
        rank below functions and classes on equal evidence; a query that names the kind it
        wants ("base class for…", "the function that…") lifts chunks of that kind. Asides
        (tests, examples, release notes) weigh `aside_weight` unless the query asks for them."""
        fusion = settings()["fusion"]
        weights = dict(fusion["kind_weights"])
        words = set(terms)
        for cue in fusion["kind_cues"]:
            if words.intersection(cue["words"]):
                for kind in cue["kinds"]:
                    weights[kind] = weights.get(kind, 1.0) * fusion["kind_cue_weight"]
        aside = 1.0 if asks_for_asides(terms, fusion["aside_cues"]) else fusion["aside_weight"]
        asides = self.asides
        return {
            p: score * weights.get(self.documents[p].chunk.kind.value, 1.0) * (aside if p in asides else 1.0)
            for p, score in scores.items()
        }

    def _collapse(self, order: list[int], combined: dict[int, float], sparse: dict[int, float], dense: dict[int, float], top: int) -> list[Hit]:
        """The first `top` distinct symbols of `order`, best chunk of each."""
        best: dict[tuple[str, str], Hit] = {}
        for position in order:
            score = combined[position]
            chunk = self.documents[position].chunk
            key = (chunk.path, chunk.symbol)
            if key in best:
                continue
            best[key] = Hit(
                chunk.path, chunk.symbol, chunk.kind.value, chunk.start_line, chunk.end_line, score,
                chunk.id, sparse.get(position, 0.0), dense.get(position, 0.0),
            )
            if len(best) == top:
                break
        return list(best.values())

