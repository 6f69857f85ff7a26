"""Configuration: defaults, `refdoc.yml`, every problem reported at once, CLI overrides."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import write_repo

from refdoc_site.cli import main
from refdoc_site.core.config import Config, load_config, parse_config, with_overrides
from refdoc_site.core.errors import ConfigError

PROBLEM_LINE = re.compile(r"^refdoc\.yml: [\w.]+: \S.*$")


def problems_of(repo: Path) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_config(repo)
    lines = str(caught.value).splitlines()
    assert lines == caught.value.problems
    return lines


def test_missing_file_gives_defaults(tmp_path):
    config = load_config(write_repo(tmp_path, {"a.py": "x = 1\n"}))
    assert config == Config()
    assert (config.chunk_size, config.chunk_overlap) == (512, 50)
    assert config.language == "en"
    assert config.include == () and config.exclude == ()
    assert config.module_depth == 0  # automatic
    assert config.max_file_size == 1_000_000


def test_empty_file_gives_defaults(tmp_path):
    assert load_config(write_repo(tmp_path, {"refdoc.yml": ""})) == Config()


def test_valid_file_is_read(tmp_path):
    repo = write_repo(
        tmp_path,
        {
            "refdoc.yml": """
                site_name: My Project
                language: ja
                include: ["src/**", "*.md"]
                exclude: ["src/vendor/"]
                max_file_size: 2048
                chunk_size: 300
                chunk_overlap: 30
                module_depth: 2
            """
        },
    )
    config = load_config(repo)
    assert config.site_name == "My Project"
    assert config.language == "ja"
    assert config.include == ("src/**", "*.md")
    assert config.exclude == ("src/vendor/",)
    assert config.max_file_size == 2048
    assert (config.chunk_size, config.chunk_overlap) == (300, 30)
    assert config.module_depth == 2
    settings = config.chunk_settings()
    assert (settings.size, settings.overlap) == (300, 30)


def test_every_problem_is_reported_at_once_one_line_each(tmp_path):
    repo = write_repo(
        tmp_path,
        {
            "refdoc.yml": """
                site_nam: typo
                chunk_size: "big"
                include: src/**
                language: fr
                max_file_size: 0
                module_depth: true
            """
        },
    )
    lines = problems_of(repo)
    assert len(lines) == 6
    for line in lines:
        assert PROBLEM_LINE.match(line), line
    keys = [line.split(": ")[1] for line in lines]
    assert sorted(keys) == sorted(["site_nam", "chunk_size", "include", "language", "max_file_size", "module_depth"])
    by_key = dict(zip(keys, lines))
    assert "unknown option" in by_key["site_nam"]
    assert "'big'" in by_key["chunk_size"]
    assert "list" in by_key["include"]
    assert "en, ja" in by_key["language"]
    assert "bool" in by_key["module_depth"]


def test_per_language_override(tmp_path):
    repo = write_repo(tmp_path, {"refdoc.yml": "languages: {python: {chunk_size: 100}}\n"})
    config = load_config(repo)
    assert config.languages == {"python": {"chunk_size": 100}}
    settings = config.chunk_settings()
    assert settings.per_language["python"] == (100, 50)
    assert "javascript" not in settings.per_language


def test_per_language_problems_are_reported_with_the_other_problems(tmp_path):
    repo = write_repo(
        tmp_path,
        {
            "refdoc.yml": """
                languages:
                  cobol: {chunk_size: 100}
                  python: {chunk_size: 2, chunk_sz: 10}
                bogus: 1
            """
        },
    )
    lines = problems_of(repo)
    assert len(lines) == 4
    assert any(line.startswith("refdoc.yml: languages.cobol: unknown language") for line in lines)
    assert any(line.startswith("refdoc.yml: languages.python.chunk_size: ") for line in lines)
    assert any(line.startswith("refdoc.yml: languages.python.chunk_sz: unknown option") for line in lines)
    assert any(line.startswith("refdoc.yml: bogus: unknown option") for line in lines)


def test_invalid_yaml_names_the_line(tmp_path):
    repo = write_repo(tmp_path, {"refdoc.yml": "site_name: ok\nchunk_size: 100\ninclude: a: b\nexclude: []\n"})
    lines = problems_of(repo)
    assert len(lines) == 1
    assert lines[0].startswith("refdoc.yml:3: "), lines[0]
    assert "YAML" in lines[0]


def test_top_level_must_be_a_mapping(tmp_path):
    lines = problems_of(write_repo(tmp_path, {"refdoc.yml": "- a\n- b\n"}))
    assert len(lines) == 1 and lines[0].startswith("refdoc.yml: ")


def test_overlap_not_smaller_than_size_is_rejected(tmp_path):
    lines = problems_of(write_repo(tmp_path, {"refdoc.yml": "chunk_size: 100\nchunk_overlap: 100\n"}))
    assert lines == [lines[0]]
    assert lines[0].startswith("refdoc.yml: chunk_overlap: ")


def test_command_line_overrides():
    config = with_overrides(Config(), chunk_size=200, chunk_overlap=None)
    assert (config.chunk_size, config.chunk_overlap) == (200, 50)
    config = with_overrides(config, chunk_overlap=10)
    assert (config.chunk_size, config.chunk_overlap) == (200, 10)
    assert with_overrides(Config(), chunk_size=None, chunk_overlap=None) == Config()


def test_command_line_overlap_not_smaller_than_size_is_rejected():
    with pytest.raises(ConfigError) as caught:
        with_overrides(Config(), chunk_size=64, chunk_overlap=64)
    assert caught.value.problems == [caught.value.problems[0]]
    assert caught.value.problems[0].startswith("--overlap: ")
    with pytest.raises(ConfigError) as caught:
        with_overrides(Config(), chunk_size=1)
    assert caught.value.problems[0].startswith("--chunk-size: ")


def test_parse_config_rejects_overlap_from_file_against_default_size():
    with pytest.raises(ConfigError):
        parse_config({"chunk_overlap": 600})


# --- through the command line ---------------------------------------------------------------


def test_cli_bad_config_exits_2_prints_each_problem_and_builds_nothing(tmp_path, capsys):
    repo = write_repo(
        tmp_path / "repo",
        {
            "app.py": "def f():\n    return 1\n",
            "refdoc.yml": "chunk_size: big\nlanguage: fr\nunknown_key: 1\n",
        },
    )
    out = tmp_path / "out"
    code = main(["build", str(repo), "--out", str(out)])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3
    for line in err:
        assert line.startswith("refdoc-site: refdoc.yml: "), line
        assert PROBLEM_LINE.match(line.removeprefix("refdoc-site: ")), line
    assert not (repo / ".refdoc").exists()
    assert not out.exists()


def test_cli_overlap_option_rejected_before_any_work(tmp_path, capsys):
    repo = write_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    code = main(["index", str(repo), "--chunk-size", "100", "--overlap", "100"])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("refdoc-site: --overlap: ")
    assert not (repo / ".refdoc").exists()
