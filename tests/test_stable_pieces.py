"""A large site's search pieces stay the same bytes where the code they cover did not change
(site_shards.py), so that a pull request's preview (rendering/previews.py) carries a few of
them: a repository indexed, one function appended to one file, indexed again, the search
data written both times in pieces and compared piece by piece."""

from __future__ import annotations

import gzip
import json
import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

import refdoc_site.search.ranking as ranking
import refdoc_site.search.site_shards as site_shards
import refdoc_site.search.vector_pieces as vector_pieces
from refdoc_site.core.config import Config
from refdoc_site.pipeline import Workspace, index
from refdoc_site.search.embed import embed_documents, matching_embedder
from refdoc_site.search.prose import ProsePage, page_documents
from refdoc_site.search.site_search import DATA_DIR, write_search_data
from test_sharded_search import needs_node, rank

ROOT = Path(__file__).resolve().parent.parent
CHANGED = "shop/app/util.py"
APPENDED = '\n\ndef clamp_percentage(value: float) -> float:\n    """Keep a percentage between zero and a hundred."""\n    return max(0.0, min(100.0, value))\n'
GLOBAL = {"config.json", "meta.bin", "stats.json", "vocabulary.json", "centroids.bin", "codebook.bin"}
"""What any edit may change: the manifest, a byte per chunk, the weights' statistics, the
list of plain terms (a new word), the centroids and the code words of the residuals (every
chunk moves them a little)."""


def _pieces(data_dir: Path) -> dict[str, bytes]:
    """{name as the browser asks for it: bytes}, a packed JSON piece unpacked: a gzip of the
    same JSON is the same bytes (no time stamp), so comparing the JSON compares the files."""
    pieces = {}
    for path in data_dir.rglob("*"):
        if path.is_file():
            name = path.relative_to(data_dir).as_posix()
            if name.endswith(site_shards.PACKED):
                pieces[name.removesuffix(site_shards.PACKED)] = gzip.decompress(path.read_bytes())
            else:
                pieces[name] = path.read_bytes()
    return pieces


def _prose_sections() -> list:
    """Sections of prose pages the change leaves alone: twenty, and three whose paths fall
    in the changed file's bucket for any power of two of buckets up to 1024 (a group of
    several files would hold them after the changed file's chunks)."""
    same = site_shards.name_bucket(CHANGED, 1024)
    numbers = [n for n in range(20_000) if site_shards.name_bucket(f"modules/shop/part{n}.md", 1024) == same][:3]
    pages = [
        ProsePage(f"modules/shop/part{n}.md", f"Module shop/part{n}", f"# Module shop/part{n}\n\nPart {n} keeps ledger{n} entries.\n\n## Files\n\nThe files of part {n}.\n")
        for n in [*range(20), *numbers]
    ]
    return page_documents(pages)


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory) -> tuple[Path, Path, list]:
    """The search data before and after the change, and the documents after it."""
    work = tmp_path_factory.mktemp("stable")
    repo = work / "repo"
    shutil.copytree(ROOT / "refdoc_site" / "search", repo / "refdoc_site" / "search", ignore=shutil.ignore_patterns("browser", "__pycache__"))
    shutil.copytree(ROOT / "tests" / "fixtures" / "golden_repo", repo / "shop")
    workspace = Workspace.create(repo, Config(), work / "store", work / "site")
    shared = ranking.settings()
    small = {**shared, "shards": {**shared["shards"], "term_shard_bytes": 3000, "chunks_per_cluster": 16, "probe": 4, "groups_per_file": 2}}
    patch = pytest.MonkeyPatch()
    patch.setattr(ranking, "settings", lambda: small)
    patch.setattr(site_shards, "settings", lambda: small)
    built = []
    try:
        for name in ("before", "after"):
            if name == "after":
                with (repo / CHANGED).open("a", encoding="utf-8") as changed:
                    changed.write(APPENDED)
            index(workspace)
            state = workspace.store.load()
            embedder = matching_embedder(state)
            sections = _prose_sections()
            if embedder is not None:
                embed_documents(sections, embedder)
            searched = state.documents + sections  # as the render phase searches them: the code, then the pages
            write_search_data(searched, work / name, embedder.directory if embedder else None, shard_min_chunks=0)
            built.append(searched)
    finally:
        patch.undo()
    return work / "before" / DATA_DIR, work / "after" / DATA_DIR, built


def test_one_appended_function_changes_only_the_pieces_of_its_file(two_builds) -> None:
    before_dir, after_dir, (before_docs, after_docs) = two_builds
    before, after = _pieces(before_dir), _pieces(after_dir)
    changed = sorted(name for name, data in after.items() if before.get(name) != data)
    manifest = json.loads(after["config.json"])["shards"]
    assert len(after_docs) == len(before_docs) + 1 and len(after_docs) > 200
    own_ids = {i for i, p in site_shards.id_positions(manifest).items() if after_docs[p].chunk.path == CHANGED}
    group = next(iter({i // manifest["idStride"] for i in own_ids}))
    for name in changed:
        kind = name.split("/", 1)[0]
        if kind in ("rows", "exact"):  # the bundles of the file's group only
            assert name.split("/")[1].split("-")[0] == str(group), name
        elif kind == "terms" and name not in before:  # a prefix's shard the new terms split
            assert any(other in changed for other in before if other.startswith("terms/") and name.startswith(other.removesuffix(".json"))), name
        elif kind == "terms":  # a shard with a term of the file's chunks
            entries = json.loads(after[name]) + json.loads(before.get(name, b"[]"))
            ids = set()
            for entry in entries:
                for flat in entry[1]:
                    ids |= _ids(flat)
            assert ids & own_ids, name
        else:
            assert name in GLOBAL or kind in ("names", "fuzzy", "clusters"), name
    terms = [n for n in after if n.startswith("terms/")]
    clusters = [n for n in after if n.startswith("clusters/")]
    rows = [n for n in after if n.startswith("rows/")]
    assert len(terms) > 20 and len(rows) > 10 and len(clusters) > 10
    assert len([n for n in changed if n.startswith("terms/")]) <= len(terms) // 4, changed
    assert len([n for n in changed if n.startswith("rows/")]) <= 2, changed
    assert len([n for n in changed if n.startswith("names/")]) <= 2, changed
    # Every cluster piece may change: k-means moves the centroids a little, and with them
    # every chunk's residual and its codes. A preview's clusters are cut against the main
    # site's centroids and code words instead (the tests below), so there they stay.
    assert sum(len(after[n]) for n in changed) < sum(len(d) for d in after.values()) // 5


def test_a_chunk_keeps_its_id_and_bundle_unless_its_own_file_changed(two_builds) -> None:
    """A function appended to one file renumbers no chunk of another file, the prose
    pages' sections (after all the code) included: a group is one file's."""
    before_dir, after_dir, (before_docs, after_docs) = two_builds
    places = []
    for data_dir, documents in ((before_dir, before_docs), (after_dir, after_docs)):
        manifest = json.loads((data_dir / "config.json").read_bytes())["shards"]
        places.append({documents[p].chunk.id: i for i, p in site_shards.id_positions(manifest).items()})
    before, after = places
    assert len({d.chunk.path for d in after_docs if d.chunk.path.startswith("modules/")}) == 23
    changed = {d.chunk.id for d in after_docs if d.chunk.path == CHANGED}
    moved = sorted(key for key, i in before.items() if after.get(key) != i and key not in changed)
    assert moved == []
    groups = site_shards.row_groups([d.chunk.path for d in after_docs], 2)
    assert len({(g, d.chunk.path) for g, d in zip(groups, after_docs)}) == len({g for g in groups}), "one file a group"


def _ids(flat: list[int]) -> set[int]:
    """The stable ids of a term entry's field list: gaps, each followed by -tf when more
    than one, then the length."""
    ids, current, i = set(), -1, 0
    while i < len(flat):
        current += flat[i]
        i += 2 if flat[i + 1] >= 0 else 3
        ids.add(current)
    return ids


@needs_node
def test_the_preview_pieces_with_the_main_sites_rank_as_the_pull_request_does(two_builds, tmp_path) -> None:
    """What a preview serves: its changed pieces, the rest from the main site's build. It
    ranks as Python ranks the pull request's chunks, and finds the appended function."""
    before_dir, after_dir, (_, after_docs) = two_builds
    served = tmp_path / DATA_DIR
    shutil.copytree(before_dir, served)
    for path in (p for p in after_dir.rglob("*") if p.is_file()):  # the files as stored, packed ones packed
        name, data = path.relative_to(after_dir).as_posix(), path.read_bytes()
        if (before_dir / name).is_file() and (before_dir / name).read_bytes() == data:
            continue
        (served / name).parent.mkdir(parents=True, exist_ok=True)
        (served / name).write_bytes(data)
    queries = ["clamp percentage", "clamp_percentage", "keep a percentage between zero", "parse the configuration", "SearchIndex"]
    javascript, _ = rank(served, queries, "sparse")
    python_index = ranking.SearchIndex.build(after_docs)
    for query, js_hits in zip(queries, javascript):
        py_hits = python_index.search(query, 10, "sparse")
        assert js_hits and all(h["path"] for h in js_hits), query
        assert [(h["path"], h["symbol"]) for h in js_hits] == [(h.path, h.symbol) for h in py_hits], query
    assert (javascript[0][0]["path"], javascript[0][0]["symbol"]) == (CHANGED, "clamp_percentage")


def _clusters(pieces: dict[str, bytes]) -> dict[str, set[int]]:
    """{cluster piece: the stable ids of its chunks}."""
    found = {}
    for name, data in pieces.items():
        if name.startswith("clusters/"):
            size = struct.unpack_from("<I", data, 8)[0]
            found[name] = set(np.frombuffer(data, "<u4", size, 16).tolist())
    return found


def test_a_site_cut_by_its_own_centroids_is_the_site_as_written(two_builds) -> None:
    before_dir, _, _ = two_builds
    before = _pieces(before_dir)
    cut = vector_pieces.clusters_cut_by(before_dir, before_dir)
    assert cut is not None and cut.clusters == json.loads(before["config.json"])["shards"]["vectors"]["clusters"]
    assert cut.pieces == {name: data for name, data in before.items() if name.startswith("clusters/") or name in ("centroids.bin", "codebook.bin")}


def test_a_preview_cut_by_the_main_sites_centroids_differs_in_the_clusters_of_changed_chunks_only(two_builds) -> None:
    """The pull request's chunks cut against the main site's centroids: a cluster piece
    differs only where a chunk that was added, removed or changed is or was, where the
    pull request's own k-means moved chunks that did not change."""
    before_dir, after_dir, _ = two_builds
    before, after = _pieces(before_dir), _pieces(after_dir)
    stride = json.loads(after["config.json"])["shards"]["idStride"]
    dim, per = (json.loads(after["config.json"])["shards"]["vectors"][key] for key in ("dim", "exactPerBundle"))
    rows = {}
    for name, folder in (("before", before_dir), ("after", after_dir)):
        ids, vectors, scales = vector_pieces.exact_rows(folder, stride, per, dim)
        rows[name] = {int(i): (v.tobytes(), float(s)) for i, v, s in zip(ids, vectors, scales)}
    moved = {i for i in rows["before"].keys() | rows["after"].keys() if rows["before"].get(i) != rows["after"].get(i)}
    assert 1 <= len(moved) < len(rows["after"]) // 10
    cut = vector_pieces.clusters_cut_by(after_dir, before_dir)
    assert cut.pieces["centroids.bin"] == before["centroids.bin"] and cut.pieces["codebook.bin"] == before["codebook.bin"]
    was, now = _clusters(before), _clusters(cut.pieces)
    differ = {name for name in now if cut.pieces[name] != before[name]}
    assert differ and all((was[name] | now[name]) & moved for name in differ), differ
    assert all(now[name] == was[name] - moved | (now[name] & moved) for name in now)
    own_build = {name for name, data in after.items() if name.startswith("clusters/") and before.get(name) != data}
    assert len(differ) <= len(own_build), (differ, own_build)


@needs_node
def test_a_preview_with_clusters_cut_by_the_main_site_ranks_as_python_does_over_them(two_builds, tmp_path) -> None:
    """The preview as make_preview serves it: the main site's pieces, the pull request's
    changed ones, and its clusters cut against the main site's centroids. The browser's fused
    ranking over them is Python's over the same clusters, and finds the appended function."""
    from refdoc_site.search.embed import default_embedder

    before_dir, after_dir, (_, after_docs) = two_builds
    served = tmp_path / DATA_DIR
    shutil.copytree(before_dir, served)
    cut = vector_pieces.clusters_cut_by(after_dir, before_dir)
    for path in (p for p in after_dir.rglob("*") if p.is_file()):
        name, data = path.relative_to(after_dir).as_posix(), path.read_bytes()
        if name.startswith("clusters/") or name in ("centroids.bin", "codebook.bin") or ((before_dir / name).is_file() and (before_dir / name).read_bytes() == data):
            continue
        (served / name).parent.mkdir(parents=True, exist_ok=True)
        (served / name).write_bytes(data)
    for name, data in cut.pieces.items():
        (served / name).write_bytes(data)
    config = json.loads((served / "config.json").read_text(encoding="utf-8"))
    config["shards"]["vectors"].update(clusters=cut.clusters, probe=cut.probe)
    (served / "config.json").write_text(json.dumps(config), encoding="utf-8")
    python_index = ranking.SearchIndex.build(after_docs)
    vectors = config["shards"]["vectors"]
    approximate = ranking.SearchIndex(python_index.documents, python_index.serialized, python_index.rows, python_index.scales, python_index.fields)
    approximate.dense_probe = site_shards.approximate_probe(python_index, site_shards.read_partition(served, config["shards"]), vectors["probe"], vectors["rerank"])
    queries = ["keep a percentage between zero and a hundred", "clamp percentage", "parse the configuration", "ledger entries"]
    javascript, _ = rank(served, queries, "fused")
    embedder = default_embedder()
    for query, js_hits in zip(queries, javascript):
        py_hits = approximate.search(query, 10, "fused", embedder)
        assert [h["score"] for h in js_hits] == pytest.approx([h.score for h in py_hits], abs=1e-6), query
    assert (javascript[0][0]["path"], javascript[0][0]["symbol"]) == (CHANGED, "clamp_percentage")
