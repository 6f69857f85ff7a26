"""The wheel carries the templates: build it, install it into a fresh virtual environment
and build a site from there, away from the source checkout."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "golden_repo"


def test_wheel_installs_and_builds_a_site(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
    )
    wheel = next(dist.glob("refdoc_site-*.whl"))
    environment = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(environment)
    python = environment / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(wheel)], check=True, capture_output=True)

    installed = subprocess.run(
        [str(python), "-c", "import refdoc_site.core.resources as r; print(r.templates_dir()); print(r.mkdocs_template())"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    ).stdout.split()
    assert all("site-packages" in path for path in installed), installed

    repo = tmp_path / "shop"
    shutil.copytree(FIXTURE, repo)
    result = subprocess.run(
        [str(environment / "bin" / "refdoc-site"), "build", str(repo), "--out", str(tmp_path / "site")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "site" / "index.html").exists()
    assert (tmp_path / "site" / "files" / "app" / "service.py" / "index.html").exists()
