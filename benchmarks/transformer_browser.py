"""The transformer query encoder in the browser: first-result time of onnxruntime-web (wasm)
with the int8 all-MiniLM-L6-v2, in Debian's Chromium, cold.

    npm pack onnxruntime-web && tar xzf onnxruntime-web-*.tgz     # gives package/dist
    python benchmarks/transformer_browser.py --ort package/dist --model DIR [--runs 3]

DIR is `tools/embedder/bert_onnx.py --out DIR`. A page served from loopback imports
`ort.wasm.min.mjs`, creates an inference session from `model-int8.onnx` (fetch, wasm
compile, graph load) on one thread, and embeds a query whose token ids were made in
Python by the same WordPiece tokenizer; each run is a new browser context (no cache). It
prints the milliseconds of each step, the bytes the page fetched (raw and gzipped) and
the cosine of the browser's vector with onnxruntime's in Python (the same graph: ~1.0).
Transfer time over a real network is not in these figures: loopback.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests"), str(HERE.parent / "tools" / "embedder")]

from bert_onnx import OnnxEmbedder
from helpers import CHROMIUM, CHROMIUM_FLAGS
from search_bench import Server

QUERY = "what happens when a request comes in"
FILES = ("ort.wasm.min.mjs", "ort-wasm-simd-threaded.wasm", "ort-wasm-simd-threaded.mjs")
PAGE = """<!doctype html><meta charset="utf-8"><script type="module">
const t0 = performance.now();
const ort = await import("./ort.wasm.min.mjs");
ort.env.wasm.numThreads = 1;
ort.env.wasm.wasmPaths = "./";
const t1 = performance.now();
const session = await ort.InferenceSession.create("./model-int8.onnx", {executionProviders: ["wasm"]});
const t2 = performance.now();
const ids = %s;
const feeds = {
  input_ids: new ort.Tensor("int64", BigInt64Array.from(ids.map(BigInt)), [1, ids.length]),
  attention_mask: new ort.Tensor("int64", BigInt64Array.from(ids.map(() => 1n)), [1, ids.length]),
};
const first = await session.run(feeds);
const t3 = performance.now();
const again = [];
for (let i = 0; i < 5; i++) { const s = performance.now(); await session.run(feeds); again.push(performance.now() - s); }
window.result = {import_ms: t1 - t0, session_ms: t2 - t1, first_query_ms: t3 - t2, total_ms: t3 - t0,
  next_query_ms: again.sort((a, b) => a - b)[2], vector: Array.from(first.sentence_embedding.data)};
</script>"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ort", type=Path, required=True, help="onnxruntime-web's dist folder")
    parser.add_argument("--model", type=Path, required=True, help="the folder bert_onnx.py wrote")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    embedder = OnnxEmbedder(args.model / "model-int8.onnx")
    ids = embedder.token_ids(QUERY)
    expected = embedder.embed([QUERY])[0]
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        for name in FILES:
            shutil.copy(args.ort / name, root / name)
        shutil.copy(args.model / "model-int8.onnx", root / "model-int8.onnx")
        (root / "index.html").write_text(PAGE % json.dumps(ids), encoding="utf-8")
        fetched = [root / name for name in (*FILES, "model-int8.onnx")]
        raw = sum(p.stat().st_size for p in fetched)
        zipped = sum(len(gzip.compress(p.read_bytes(), 9)) for p in fetched)
        runs = []
        with Server(root) as server, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            for _ in range(args.runs):
                context = browser.new_context()
                page = context.new_page()
                page.goto(server.origin + "/index.html")
                page.wait_for_function("window.result !== undefined", timeout=300_000)
                runs.append(page.evaluate("window.result"))
                context.close()
            browser.close()
    cosine = float(np.dot(np.asarray(runs[0]["vector"]), expected))
    print(f"query {QUERY!r}: {len(ids)} tokens; fetched {raw:,} bytes ({zipped:,} gzipped); cosine with Python's vector {cosine:.5f}")
    for key in ("import_ms", "session_ms", "first_query_ms", "total_ms", "next_query_ms"):
        values = [run[key] for run in runs]
        print(f"{key}: median {statistics.median(values):.0f} ms (runs: {', '.join(f'{v:.0f}' for v in values)})")


if __name__ == "__main__":
    main()
