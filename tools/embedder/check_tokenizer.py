"""Check that `refdoc_site.search.wordpiece` gives the teacher tokenizer's ids on real text.

    /work/train-venv/bin/python tools/embedder/check_tokenizer.py --cache /work/train-cache --lines 5000

Takes code lines (Python and JavaScript, comments and strings included) from the
downloaded packages, plus the training texts and hand-written tricky cases (accents,
CJK, emoji, control characters, long words), tokenizes each with the `tokenizers`
library (the teacher's `tokenizer.json`, no special tokens, no truncation) and with the
pure-Python tokenizer, and prints how many differ (and the first differences).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from refdoc_site.search.wordpiece import WordPieceTokenizer

TRICKY = [
    "Café déjà vu naïve façade Ångström Øresund ß İstanbul ΟΔΟΣ",
    "認証 ログイン セッション トークン を確認する関数",
    "检查用户的权限 한국어 텍스트 🙂 emoji 👍🏽 ✓",
    "tab\tnew\nline\r\x0bvertical\x0cform\x85next\u2028sep\u00a0nbsp\u3000ideographic",
    "zero\u200bwidth soft\u00adhyphen bom\ufeff rtl\u202e ctrl\x07\x00\ufffd",
    "a" * 99, "b" * 100, "c" * 101, "supercalifragilisticexpialidocious_" * 3,
    "x = foo.bar(baz)[0] -> Dict[str, List[int]]  # noqa: E501",
    "«quoted» “curly” ‘single’ — em–dash … ellipsis ¿qué? ¡sí! § ¶ † ‡ • · ‰ ′ ″",
    "$var @decorator #hash %mod ^xor &and *star ~tilde `tick` |pipe| \\back/slash",
    "Ⅻ ① ﬁ ligature ＡＢＣ fullwidth ｶﾀｶﾅ halfwidth",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 math 𠀀𠀁 ext-b ideographs",
]


def code_lines(cache: Path, wanted: int, rng: random.Random) -> list[str]:
    lines: list[str] = []
    archives = sorted(p for sub in ("pypi", "npm") for p in (cache / sub).glob("*") if not p.name.startswith("."))
    rng.shuffle(archives)
    for archive in archives[:80]:
        texts: list[str] = []
        try:
            if archive.suffix == ".whl":
                with zipfile.ZipFile(archive) as zf:
                    for name in zf.namelist()[:40]:
                        if name.endswith(".py"):
                            texts.append(zf.read(name).decode("utf-8", "replace"))
            elif archive.name.endswith((".tgz", ".tar.gz")):
                with tarfile.open(archive) as tf:
                    for member in tf.getmembers()[:40]:
                        if member.isfile() and member.name.endswith((".js", ".py", ".ts")):
                            texts.append(tf.extractfile(member).read().decode("utf-8", "replace"))
        except Exception:  # noqa: BLE001, S112 - an unreadable archive is skipped
            continue
        for text in texts:
            candidates = [line for line in text.splitlines() if line.strip()]
            lines.extend(rng.sample(candidates, min(len(candidates), 8)))
    rng.shuffle(lines)
    return lines[:wanted]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cache", type=Path, default=Path("/work/train-cache"))
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--texts", type=int, default=3000, help="training texts to add")
    args = parser.parse_args()
    from tokenizers import Tokenizer

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from teacher import teacher_path

    reference = Tokenizer.from_file(str(teacher_path() / "tokenizer.json"))
    reference.no_truncation()
    reference.no_padding()
    ours = WordPieceTokenizer.from_file(teacher_path() / "vocab.txt")
    rng = random.Random(0)
    samples = TRICKY + code_lines(args.cache, args.lines, rng)
    texts_path = args.cache / "texts.jsonl"
    if texts_path.exists() and args.texts:
        records = [json.loads(line)["text"] for line in texts_path.open(encoding="utf-8")]
        samples += rng.sample(records, min(args.texts, len(records)))
    differing = []
    tokens = 0
    for sample in samples:
        expected = reference.encode(sample, add_special_tokens=False).ids
        got = ours.encode(sample)
        tokens += len(expected)
        if expected != got:
            differing.append((sample, expected, got))
    print(f"{len(samples)} texts ({len(TRICKY)} tricky), {tokens} tokens: {len(differing)} differ")
    for sample, expected, got in differing[:10]:
        print(repr(sample[:200]))
        print("  tokenizers:", reference.decode(expected)[:200], expected[:30])
        print("  wordpiece: ", ours.tokens and [ours.tokens[i] for i in got][:30])
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
