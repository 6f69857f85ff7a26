"""Download the training corpus packages into a cache outside the repository.

    python tools/embedder/fetch.py --cache /work/train-cache

PyPI packages with `pip download --no-deps` (a wheel when one exists, else the sdist),
npm packages with `npm pack`; a package already in the cache is not fetched again, and a
package that fails is reported and skipped.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from packages import npm_packages, pypi_packages


def _have(folder: Path, name: str) -> bool:
    stem = name.replace("-", "_").lower()
    for path in folder.iterdir():
        lowered = path.name.lower().replace("-", "_")
        if lowered.startswith((stem + "_", stem + "-")):
            return True
    return (folder / f".{name}.failed").exists()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cache", type=Path, default=Path("/work/train-cache"))
    args = parser.parse_args()
    pypi = args.cache / "pypi"
    npm = args.cache / "npm"
    pypi.mkdir(parents=True, exist_ok=True)
    npm.mkdir(parents=True, exist_ok=True)
    for name in pypi_packages():
        if _have(pypi, name):
            continue
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(pypi), name],
            capture_output=True, text=True, check=False,
        )
        if done.returncode:
            (pypi / f".{name}.failed").write_text(done.stderr[-2000:])
            print(f"pypi {name}: failed", flush=True)
        else:
            print(f"pypi {name}: ok", flush=True)
    for name in npm_packages():
        if _have(npm, name):
            continue
        done = subprocess.run(["npm", "pack", "--silent", name], cwd=npm, capture_output=True, text=True, check=False)
        print(f"npm {name}: {'failed' if done.returncode else 'ok'}", flush=True)


if __name__ == "__main__":
    main()
