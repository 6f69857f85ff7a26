"""Print the evaluation JSON files written by `evaluate.py --json` as one compact table.

    python tools/embedder/summarize_results.py /work/train-cache/eval-*.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

KINDS = ("overall", "paraphrase", "keyword", "concept", "japanese")


def main() -> None:
    print("| set | model | ranking | " + " | ".join(KINDS) + " | R@10 overall |")
    print("|---|---|---|" + "---:|" * (len(KINDS) + 1))
    for name in sys.argv[1:]:
        path = Path(name)
        label = path.stem.split("-")[1] if "-" in path.stem else path.stem
        results = json.loads(path.read_text())
        for spec, result in results.items():
            if spec == "sparse":
                rows = [("BM25 (lunr)", "sparse", result)]
            else:
                rows = [(result["name"], "dense", result["table"])]
                for key, table in result.get("product", {}).items():
                    if key.startswith("fused"):
                        rows.append((result["name"], key, table))
            for model, ranking, table in rows:
                cells = " | ".join(f"{table[k]['mrr10']:.3f}" if k in table else "" for k in KINDS)
                print(f"| {label} | {model} | {ranking} | {cells} | {table['overall']['r10']:.3f} |")


if __name__ == "__main__":
    main()
