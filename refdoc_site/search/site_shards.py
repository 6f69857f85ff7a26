"""A large site's search data in pieces, so a query fetches what it needs and no more.

A small site ships one Lunr index, one chunk table and one vector file (`site_search.py`);
past `shards.min_chunks` chunks that costs every first query the whole site (27 MB gzipped
on homeassistant). Here the same data is cut up; the browser (`refdoc-shards.js`) fetches:

- `terms/kH.json`, the postings of the terms that share a prefix (H: the prefix in
  `key_name`'s hex, so that a new key leaves the other shards' names alone): the longest
  key of `keys` a term starts with, a prefix split further while its shard is over
  `term_shard_bytes`. An entry is `[term, per field [gap, (-tf,) length, …]]` over the
  chunks' stable ids (`stable_ids`): the raw counts, not weights, so that an entry stays
  the same bytes while no chunk with its term changes. The browser makes the weight Lunr's
  own index holds from them and `stats.json` (the mean lengths, the idf of each posting
  count: what changes with any edit, in one small file) with the operations of
  `lunr_index.posting_weights`, so what it scores a fetched term with is exact. A query's
  exact clause reads its stem's shard, a prefix clause every shard under the prefix;
- `fuzzy/p-H.json`, `fuzzy/s-H.json` (H: `key_name`): the terms of four letters or more by their first and
  by their last two letters. A term one edit from a query term of five letters or more
  (the typo clause) keeps the first two letters when the edit is at the third letter or
  later, and the last two when it is at the first or second, so the two lists name every
  such term, and the browser then fetches those terms' shards;
- `meta.bin`: a byte per chunk (its kind, whether its name is private, whether it is an
  aside (asides.py), whether it belongs
  to the symbol of the chunk before): what the fusion and the collapse read of any chunk;
- `names/N.json`: the definitions by the key of their name (`names.name_key`), hashed into
  a power of two of buckets, by stable id, for a query that is a name;
- `rows/G-K.json`: the chunk table's rows, for the results shown, keyed by file so that
  a pull request's preview (rendering/previews.py) carries only the bundles of the files
  it changed: a file has group G to itself (`row_groups`: a hash of its path), and
  group G's rows, in position order, are cut `rows_per_bundle` at a time (bundle K). The manifest's
  `rowRuns` names the group of each position (run lengths), all the browser needs to find
  a position's bundle;
- `centroids.bin` (four bits a dimension), `codebook.bin` and `clusters/N.bin` (vector_partition): the query's
  `probe` nearest clusters, each chunk (by stable id) in the product codes of its residual
  (a byte a slice, `Codebook`); `exact/G-K.bin`, the int8 rows of
  group G's chunks `exact_per_bundle` at a time (as the rows), for the `rerank` best by
  coarse score;
- `model/vocab/N.txt` and `model/blocks/N.bin`: the word pieces by their first
  characters (`vocab_key`), and the embedding model's rows `model_rows_per_block` at a
  time, for the query's words and word pieces only;
- `vocabulary.json`: the index's plain English terms, for a Japanese query's loanwords only.

Every JSON piece is written gzipped, its name followed by `PACKED` (`terms/kH.json.gz`;
the manifest's `packed` says so and the browser unpacks it): GitHub Pages compresses what it
serves, not what it stores, and the JSON pieces were 132 of homeassistant's 158 MB of
search data. What a query transfers stays as it was. `read_piece` reads one back.
"""

from __future__ import annotations

import gzip
import math
import struct
from collections.abc import Callable
from pathlib import Path

import numpy as np
import orjson

from ..core.kept_files import KeptFolder
from ..core.records import ChunkKind
from .embed import read_model
from .loanwords import rules as loanword_rules
from .names import is_public, name_key
from .ranking import SCORE_DECIMALS, SearchIndex, settings
from .site_terms import TermCounts, TermPostings, fuzzy_lists, term_shards
from .vector_partition import VectorPartition, approximate_dense_scores, cluster_count
from .vector_pieces import centroids_bytes, cluster_pieces, codebook_bytes, read_centroids, read_codebook

FORMAT = "refdoc-shards/4"
PACKED = ".gz"
"""What follows a JSON piece's name: the piece is gzipped."""
EXACT_MAGIC = b"RDEXA\x00\x01\x00"
MODEL_BLOCK_MAGIC = b"RDMBK\x00\x01\x00"
KINDS = [kind.value for kind in ChunkKind]
PRIVATE_BIT = 0x10
CONTINUES_BIT = 0x20
ASIDE_BIT = 0x40
FUZZY_KEY = 2
FUZZY_MIN_TERM = 4
"""A typo clause needs five letters; the terms one edit away have four or more."""


def key_name(key: str) -> str:
    """A key in a file's name: its UTF-16 code units, four hex digits each (refdoc-shards.js
    `keyName`); "" for the empty key."""
    return key.encode("utf-16-be").hex()


def name_bucket(key: str, buckets: int) -> int:
    """FNV-1a over the key's UTF-16 code units (what JavaScript's charCodeAt reads)."""
    value = 0x811C9DC5
    units = key.encode("utf-16-le")
    for i in range(0, len(units), 2):
        value = ((value ^ (units[i] | units[i + 1] << 8)) * 0x01000193) & 0xFFFFFFFF
    return value % buckets


def write_sharded(
    index: SearchIndex, counts: TermCounts, row_of: Callable[[int], dict], folder: KeptFolder, model_dir: Path | None,
    clustered: Callable[[], VectorPartition],
) -> tuple[dict, dict[str, int]]:
    """Write the pieces from `index`'s documents and vectors (`clustered`: their partition,
    asked for when the vectors ship, after the other pieces) and their term `counts`, the
    chunk table's rows made one bundle at a time (`row_of` a position); returns the
    `shards` entry of config.json and the bytes per file."""
    options = settings()["shards"]
    written: dict[str, int] = {}

    def put(name: str, data: object) -> None:
        written[name + PACKED] = folder.write_made(name + PACKED, orjson.dumps(data), pack)

    def put_bytes(name: str, data: bytes) -> None:
        written[name] = folder.write(name, data)

    def put_keyed(name: str, key: str, make: Callable[[], object]) -> None:
        written[name + PACKED] = folder.write_keyed(name + PACKED, key, lambda: pack(orjson.dumps(make())))

    groups = row_groups([d.chunk.path for d in index.documents], options["groups_per_file"])
    ids, stride = stable_ids(groups)
    manifest = _write_keyword_side(index, counts, row_of, groups, ids, stride, options, put, put_bytes, put_keyed)
    if index.has_vectors and model_dir is not None:
        manifest["vectors"] = _write_vectors(index, clustered(), groups, ids, options, put_bytes)
        manifest["model"] = _write_model(model_dir, options["model_rows_per_block"], put_bytes)
    return manifest, written


def clusters_for(chunks: int) -> int:
    """How many clusters the vectors of `chunks` chunks are cut into (settings' `chunks_per_cluster`)."""
    return cluster_count(chunks, settings()["shards"]["chunks_per_cluster"])


def _write_keyword_side(
    index: SearchIndex, counts: TermCounts, row_of: Callable[[int], dict], groups: list[int], ids: list[int], stride: int,
    options: dict, put: Callable[[str, object], None], put_bytes: Callable[[str, bytes], None],
    put_keyed: Callable[[str, str, Callable[[], object]], None],
) -> dict:
    """The term shards, fuzzy lists, names, rows and vocabulary; returns the manifest
    without its vectors."""
    keys = _write_terms(counts, ids, options["term_shard_bytes"], put_keyed)
    fuzzy = {side: fuzzy_lists(counts.terms, key_of, FUZZY_MIN_TERM) for side, key_of in (("prefix", _first_letters), ("suffix", _last_letters))}
    for side, lists in fuzzy.items():
        for key, terms in lists.items():
            put(f"fuzzy/{side[0]}-{key_name(key)}.json", terms)
    put_bytes("meta.bin", _meta(index))
    put("stats.json", counts.statistics())
    buckets = _power_of_two(len(index.documents) / max(options["names_per_bucket"], 1))
    for number, bucket in enumerate(_name_buckets(index, ids, buckets)):
        put(f"names/{number}.json", bucket)
    per_bundle = options["rows_per_bundle"]
    for name, positions in _bundles(groups, per_bundle).items():
        put(f"rows/{name}.json", [row_of(p) for p in positions])
    rules = loanword_rules()
    put("vocabulary.json", [t for t in counts.terms if t.isascii() and t.isalpha() and t.islower() and len(t) >= rules["min_term_length"]])
    return {
        "format": FORMAT,
        "fields": counts.fields,
        "pipeline": ["stemmer"],
        "decimals": SCORE_DECIMALS,
        "documents": counts.count,
        "keys": keys,
        "fuzzy": {side: list(lists) for side, lists in fuzzy.items()},
        "kinds": KINDS,
        "groups": _group_exceptions(index),
        "nameBuckets": buckets,
        "rowsPerBundle": per_bundle,
        "rowRuns": _runs(groups),
        "idStride": stride,
        "packed": PACKED,
        "vectors": None,
        "model": None,
    }


def _write_terms(counts: TermCounts, ids: list[int], limit: int, put_keyed: Callable[[str, str, Callable[[], object]], None]) -> list[str]:
    """`terms/kH.json`, each shard's entries made while it is written (site_terms.py), or
    kept from the last render when what they are made from is the same (a one-file change
    touches a few of homeassistant's shards); returns the shards' keys in order. The
    postings sorted for the entries go on return."""
    postings = TermPostings(counts, ids)
    shards = term_shards(counts.terms, postings.sizes, limit)
    for key, numbers in shards:
        put_keyed(f"terms/k{key_name(key)}.json", postings.key(numbers), lambda numbers=numbers: postings.entries(numbers))
    return [key for key, _ in shards]


def _first_letters(term: str) -> str:
    return term[:FUZZY_KEY]


def _last_letters(term: str) -> str:
    return term[-FUZZY_KEY:]


def _symbol_keys(index: SearchIndex) -> list[tuple[str, str]]:
    return [(d.chunk.path, d.chunk.symbol) for d in index.documents]


def _meta(index: SearchIndex) -> bytes:
    """One byte a chunk: kind number, PRIVATE_BIT, CONTINUES_BIT (same symbol as the one
    before), ASIDE_BIT (a test, example, release notes…: asides.py)."""
    out = bytearray()
    keys = _symbol_keys(index)
    asides = index.asides
    for position, document in enumerate(index.documents):
        value = KINDS.index(document.chunk.kind.value)
        if not is_public(document.chunk.symbol):
            value |= PRIVATE_BIT
        if position in asides:
            value |= ASIDE_BIT
        if position and keys[position] == keys[position - 1]:
            value |= CONTINUES_BIT
        out.append(value)
    return bytes(out)


def _group_exceptions(index: SearchIndex) -> dict[str, int]:
    """{position: first position of its symbol} for a run of a symbol's chunks that does
    not follow that symbol's first run (rare: the collapse reads one group per symbol)."""
    first: dict[tuple[str, str], int] = {}
    exceptions: dict[str, int] = {}
    keys = _symbol_keys(index)
    for position, key in enumerate(keys):
        if position and key == keys[position - 1]:
            continue
        if key in first:
            exceptions[str(position)] = first[key]
        else:
            first[key] = position
    return exceptions


def _name_buckets(index: SearchIndex, ids: list[int], buckets: int) -> list[list]:
    """Per bucket, [name key, [[stable id, symbol, path, kind], …]] in key order."""
    tables: list[dict[str, list]] = [{} for _ in range(buckets)]
    for position, document in enumerate(index.documents):
        chunk = document.chunk
        key = name_key(chunk.symbol.rsplit(".", 1)[-1])
        tables[name_bucket(key, buckets)].setdefault(key, []).append([ids[position], chunk.symbol, chunk.path, chunk.kind.value])
    return [sorted(table.items()) for table in tables]


def row_groups(paths: list[str], groups_per_file: float) -> list[int]:
    """The group of each position: one file's, never shared (so a chunk's stable id and
    bundle move only with its own file's chunks before it: a section of a prose page that
    shared the group of a code file was renumbered by a function added to that file).
    Among a power of two of groups, `groups_per_file` per file at least, a file's group
    is its path's `name_bucket`, or, taken by a file before it in path order, the next
    free one. A file keeps its group while the number of files stays within the same
    power of two and no file is added or removed before it in its bucket's run."""
    files = sorted(set(paths))
    count = _power_of_two(len(files) * max(groups_per_file, 1))
    taken: set[int] = set()
    group_of = {}
    for path in files:
        group = name_bucket(path, count)
        while group in taken:
            group = (group + 1) % count
        taken.add(group)
        group_of[path] = group
    return [group_of[path] for path in paths]


def _power_of_two(value: float) -> int:
    """The least power of two at least `value` (1 at least): a count of buckets that stays
    the same while the site grows or shrinks within a factor of two."""
    return 1 << max(0, math.ceil(math.log2(max(1.0, value))))


def stable_ids(groups: list[int]) -> tuple[list[int], int]:
    """Each position's id in the pieces: group · stride + its number among its group's
    positions, stride the power of two that holds the largest group. A chunk keeps its id
    while the chunks before it in its group stay (whatever other files do); the browser
    turns an id back into a position with the manifest's `rowRuns`."""
    local: dict[int, int] = {}
    numbers = []
    for group in groups:
        numbers.append(local.get(group, 0))
        local[group] = numbers[-1] + 1
    stride = _power_of_two(max(local.values(), default=1))
    return [group * stride + number for group, number in zip(groups, numbers)], stride


def _bundles(groups: list[int], per_bundle: int) -> dict[str, list[int]]:
    """{"G-K": positions}: group G's positions in order, `per_bundle` at a time."""
    members: dict[int, list[int]] = {}
    for position, group in enumerate(groups):
        members.setdefault(group, []).append(position)
    return {f"{g}-{k // per_bundle}": ps[k : k + per_bundle] for g, ps in sorted(members.items()) for k in range(0, len(ps), per_bundle)}


def _runs(groups: list[int]) -> list[int]:
    """[length, group, length, group, …]: the groups of the positions, run by run."""
    runs: list[int] = []
    for position, group in enumerate(groups):
        if position and group == groups[position - 1]:
            runs[-2] += 1
        else:
            runs += [1, group]
    return runs


def _write_vectors(index: SearchIndex, part: VectorPartition, groups: list[int], ids: list[int], options: dict, put_bytes) -> dict:
    count, dim = part.centroid_rows.shape
    put_bytes("centroids.bin", centroids_bytes(part.centroid_rows, part.centroid_scales))
    put_bytes("codebook.bin", codebook_bytes(part.codebook))
    for name, data in cluster_pieces(np.asarray(ids), part.codes, part.assignment, part.clusters):
        put_bytes(name, data)
    per_bundle = options["exact_per_bundle"]
    for name, positions in _bundles(groups, per_bundle).items():
        block, scales = index.rows[positions], index.scales[positions]
        data = EXACT_MAGIC + struct.pack("<II", len(block), dim) + scales.astype("<f4").tobytes()
        put_bytes(f"exact/{name}.bin", data + block.astype(np.int8).tobytes())
    return {
        "clusters": part.clusters,
        "dim": dim,
        "probe": probe_for(part.clusters, options),
        "rerank": options["rerank"],
        "exactPerBundle": per_bundle,
    }


def vocab_key(piece: str) -> str:
    """The vocabulary shard of a word piece: "##" for a word's continuation, else its first
    character when a lower-case ASCII letter or digit, else "other". A word's first piece
    starts with the word's first character, so a query needs the shards of its words'
    first characters and the continuations' (refdoc-shards.js `vocabKey`)."""
    if piece.startswith("##"):
        return "##"
    first = piece[:1]
    return first if first.isascii() and (first.islower() or first.isdigit()) else "other"


def _write_vocab(vocab: str, put_bytes) -> tuple[list[str], list[str]]:
    """model/vocab/N.txt, one a key: lines "gap<TAB>piece", gap the token id less the one
    before in that file, less one (small numbers: 110 KB gzipped whole, a query reads
    about a third). Returns the keys by file number and the lines (token order)."""
    tokens = [line.removesuffix("\r") for line in vocab.split("\n")]  # as WordPieceTokenizer.fromText reads it
    if tokens and tokens[-1] == "":
        tokens.pop()
    shards: dict[str, list[str]] = {}
    last: dict[str, int] = {}
    for token_id, piece in enumerate(tokens):
        key = vocab_key(piece)
        shards.setdefault(key, []).append(f"{token_id - last.get(key, -1) - 1}\t{piece}")
        last[key] = token_id
    keys = sorted(shards)
    for number, key in enumerate(keys):
        put_bytes(f"model/vocab/{number}.txt", ("\n".join(shards[key]) + "\n").encode("utf-8"))
    return keys, tokens


def probe_for(clusters: int, options: dict) -> int:
    """Clusters a query reads: `probe`, or `probe_share` of them when that is more. Recall
    falls with the share read (homeassistant, 1,435 clusters of 64 chunks, 100 rescored:
    dense recall@10 0.955 at 144, benchmarks/ann_recall.py), so a larger site reads more."""
    return min(clusters, max(options["probe"], round(options["probe_share"] * clusters)))


def _write_model(model_dir: Path, per_block: int, put_bytes) -> dict:
    """The model's rows in blocks of `per_block` (scales, then int8 rows), and its
    vocabulary in shards by the pieces' first characters (`vocab_key`)."""
    model = read_model(model_dir)
    keys, tokens = _write_vocab((model_dir / "vocab.txt").read_text(encoding="utf-8"), put_bytes)
    for start in range(0, len(model.matrix), per_block):
        block = model.matrix[start : start + per_block]
        data = MODEL_BLOCK_MAGIC + struct.pack("<II", len(block), block.shape[1])
        put_bytes(f"model/blocks/{start // per_block}.bin", data + model.scales[start : start + per_block].astype("<f4").tobytes() + block.astype(np.int8).tobytes())
    header = {k: model.header[k] for k in ("dim", "max_tokens", "special_tokens", "vocab_size") if k in model.header}
    first = {}
    for token_id, piece in enumerate(tokens):
        first.setdefault(piece, token_id)  # the tokenizer's own rule: a repeated piece keeps its first id
    specials = {token: first[token] for token in [*header.get("special_tokens", []), "[UNK]"] if token in first}
    return {"vocabShards": keys, "rowsPerBlock": per_block, "header": header, "specialIds": specials}


def pack(data: bytes) -> bytes:
    """A JSON piece as it is stored: gzip with no time stamp, so that the same piece is the
    same bytes in every build (a preview publishes only the pieces that differ). Level 6:
    on homeassistant's pieces level 9 took 1.6 times as long for 1 % fewer bytes."""
    return gzip.compress(data, compresslevel=6, mtime=0)


def read_piece(data_dir: Path, name: str) -> object:
    """The value of the JSON piece `name` (as the browser asks for it: `rows/3-0.json`)."""
    return orjson.loads(gzip.decompress((data_dir / (name + PACKED)).read_bytes()))


def id_positions(manifest: dict) -> dict[int, int]:
    """{stable id: position} from the manifest's `rowRuns` and `idStride` (what
    refdoc-shards.js `Bundles` reads)."""
    runs, stride = manifest["rowRuns"], manifest["idStride"]
    found, local, position = {}, {}, 0
    for length, group in zip(runs[0::2], runs[1::2]):
        for _ in range(length):
            number = local.get(group, 0)
            found[group * stride + number] = position
            local[group] = number + 1
            position += 1
    return found


def read_partition(data_dir: Path, manifest: dict) -> VectorPartition:
    """The clusters a site's vectors were written in, read back (tests, recall benchmark)."""
    rows, scales = read_centroids((data_dir / "centroids.bin").read_bytes())
    count = len(rows)
    assignment = np.zeros(manifest["documents"], dtype=np.int64)
    position_of = id_positions(manifest)
    codebook = read_codebook((data_dir / "codebook.bin").read_bytes())
    codes = np.zeros((manifest["documents"], codebook.subspaces), dtype=np.uint8)
    for cluster in range(count):
        data = (data_dir / f"clusters/{cluster}.bin").read_bytes()
        size, subspaces = struct.unpack_from("<II", data, 8)
        members = np.array([position_of[i] for i in np.frombuffer(data, "<u4", size, 16).tolist()], dtype=np.int64)
        assignment[members] = cluster
        codes[members] = np.frombuffer(data, np.uint8, size * subspaces, 16 + 4 * size).reshape(size, subspaces)
    return VectorPartition(assignment, rows, scales, codebook, codes)


def approximate_probe(index: SearchIndex, part: VectorPartition, probe: int, rerank: int) -> Callable[[np.ndarray, int], dict[int, float]]:
    """`SearchIndex.dense_probe` ranking as the site does: the `probe` nearest clusters,
    the `rerank` best of them by coarse score scored exactly."""
    return lambda query, count: approximate_dense_scores(index.rows, index.scales, part, query, probe, count, rerank)
