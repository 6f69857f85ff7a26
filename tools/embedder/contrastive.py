"""Fine-tune the static embedder contrastively on query ↔ code pairs (pairs.py).

    /work/train-venv/bin/python tools/embedder/contrastive.py \\
        --pairs /work/train-cache/pairs.jsonl --init refdoc_site/search/models/minilm-code-static-128 \\
        --out /work/train-cache/models/contrastive-128

Starts from the shipped model (its token rows and special tokens) and trains the same
sum-pooled, normalised embedding so that a docstring sentence lands nearest its own code
among the batch (InfoNCE, in-batch negatives), with a pull back towards the starting rows
so the model keeps what it learnt by imitating the transformer. Exports in the product's
format (`refdoc_site.search.embed.write_model`); the tokenizer is the product's own.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from refdoc_site.search.embed import StaticEmbedder, write_model  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=Path, required=True)
    parser.add_argument("--init", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--temperature", type=float, default=0.05)
    parser.add_argument("--anchor", type=float, default=1.0, help="weight of the pull towards the initial rows")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    import torch

    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    base = StaticEmbedder(args.init)
    pairs = [json.loads(line) for line in args.pairs.read_text(encoding="utf-8").splitlines() if line.strip()]
    random.Random(0).shuffle(pairs)
    held_out, pairs = pairs[:1000], pairs[1000:]

    def ids(text: str) -> list[int]:
        return base.token_ids(text) or [base.special_ids[0]]

    encoded = [(ids(p["query"]), ids(p["code"])) for p in pairs]
    held = [(ids(p["query"]), ids(p["code"])) for p in held_out]
    initial = torch.tensor(base.vectors, dtype=torch.float32)
    table = torch.nn.EmbeddingBag(initial.shape[0], initial.shape[1], mode="sum")
    table.weight.data.copy_(initial)
    optimizer = torch.optim.Adam(table.parameters(), lr=args.lr)

    def embed(batch: list[list[int]]) -> torch.Tensor:
        flat = torch.tensor([i for row in batch for i in row], dtype=torch.long)
        offsets = torch.tensor(np.cumsum([0] + [len(row) for row in batch[:-1]]), dtype=torch.long)
        return torch.nn.functional.normalize(table(flat, offsets), dim=1)

    def retrieval_at_1(rows: list[tuple[list[int], list[int]]]) -> float:
        with torch.no_grad():
            queries, codes = embed([q for q, _ in rows]), embed([c for _, c in rows])
            return float((queries @ codes.T).argmax(dim=1).eq(torch.arange(len(rows))).float().mean())

    print(f"{len(encoded)} training pairs, {len(held)} held out; held-out R@1 before: {retrieval_at_1(held):.3f}", flush=True)
    for epoch in range(args.epochs):
        random.Random(epoch).shuffle(encoded)
        total = 0.0
        for start in range(0, len(encoded) - args.batch + 1, args.batch):
            batch = encoded[start : start + args.batch]
            queries, codes = embed([q for q, _ in batch]), embed([c for _, c in batch])
            logits = queries @ codes.T / args.temperature
            target = torch.arange(len(batch))
            loss = (torch.nn.functional.cross_entropy(logits, target) + torch.nn.functional.cross_entropy(logits.T, target)) / 2
            loss = loss + args.anchor * (table.weight - initial).pow(2).sum(dim=1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach())
        print(f"epoch {epoch + 1}: loss {total:.1f}; held-out R@1 {retrieval_at_1(held):.3f}", flush=True)

    matrix = table.weight.detach().numpy()
    matrix[np.abs(base.vectors).sum(axis=1) == 0] = 0.0  # rows the base model left empty stay empty
    write_model(
        args.out,
        matrix,
        base.tokenizer.tokens,
        name=args.out.name,
        max_tokens=base.max_tokens,
        special_tokens=base.header.get("special_tokens", []),
        training={"init": str(args.init), "pairs": len(encoded), "epochs": args.epochs, "lr": args.lr,
                  "temperature": args.temperature, "anchor": args.anchor, "batch": args.batch},
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
