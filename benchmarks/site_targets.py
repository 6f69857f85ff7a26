"""What refdoc-site's resolver makes of each labelled call site, one site at a time.

    python benchmarks/site_targets.py STORE REPO LABELS > predictions.json

Run by `call_edges.py` in a subprocess whose PYTHONPATH holds the refdoc-site code being
measured (this checkout, or an older revision for the before column). The stored graph
links chunks, so two calls of one name from one chunk share its links; here each site's
call as written (from the same call query the analysis runs) goes through the resolver
alone: `CallResolver.resolve_call` with the store's documents, imports and manifests, as
the summarize phase builds it. Prints {"path:line:column": [chunk ids]}; a site the call
query does not see prints no key.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from refdoc_site.core.records import Document
from refdoc_site.core.serial import from_json
from refdoc_site.indexing.tree_sitter_tier import call_sites
from refdoc_site.languages.imports import MANIFESTS, RepoFiles, module_roots
from refdoc_site.languages.receivers import receiver_rules
from refdoc_site.understanding.calls import CallResolver
from refdoc_site.understanding.graph import _import_resolver


def main(store: Path, repo: Path, labels: Path) -> dict[str, list[str]]:
    files = json.loads((store / "files.json").read_text(encoding="utf-8"))["files"]
    documents = []
    with (store / "index.jsonl").open(encoding="utf-8") as records:
        documents = [from_json(Document, json.loads(line)) for line in records]
    languages = {path: entry["language"] for path, entry in files.items()}
    imports = {path: entry["imports"] for path, entry in files.items()}
    manifests = {p: (repo / p).read_text(encoding="utf-8") for p in languages if Path(p).name in MANIFESTS}
    resolve = _import_resolver(RepoFiles(languages, module_roots(manifests)))
    resolver = CallResolver(documents, imports, resolve)
    by_path: dict[str, list[Document]] = {}
    for document in documents:
        by_path.setdefault(document.chunk.path, []).append(document)
    wanted: dict[str, set[tuple[int, int]]] = {}
    for raw in labels.read_text(encoding="utf-8").splitlines():
        if raw.strip() and not raw.startswith("#"):
            path, line, column = raw.split("\t")[:3]
            wanted.setdefault(path, set()).add((int(line), int(column)))
    found: dict[str, list[str]] = {}
    for path, positions in wanted.items():
        if path not in by_path:
            continue
        text = (repo / path).read_text(encoding="utf-8", errors="replace")
        chunks = {d.chunk.id: d for d in by_path[path]}
        sites = call_sites(languages[path], text, [d.chunk for d in chunks.values()])
        for chunk_id, chunk_sites in sites.items():
            document = chunks[chunk_id]
            for site in chunk_sites:
                key = (site.line + 1, site.column + 1)
                if key in positions:
                    overloads = getattr(receiver_rules(document.chunk.language), "overloads", False)
                    if overloads and getattr(site, "arguments", None) is not None:  # an older resolver has none
                        targets = resolver.resolve_call(document.chunk, site.callee, document.metadata.definitions, [list(site.arguments)])
                    else:
                        targets = resolver.resolve_call(document.chunk, site.callee, document.metadata.definitions)
                    found[f"{path}:{key[0]}:{key[1]}"] = [t for t in targets if t != chunk_id]
    return found


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))))
