"""Command line: `refdoc-site build|index|summarize|render|stats|query|ask|plan|diff|serve|init|eval|mcp|preview`.

Every error the user can cause ends in one line on stderr and exit code 2; a configuration
with several problems prints one line per problem. The commands that write the store hold
its lock (store.py) from start to end; SIGTERM ends them as an interruption does, so the
lock goes with them.
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import signal
import sys
import tempfile
from collections.abc import Sequence
from contextlib import ExitStack, contextmanager, redirect_stdout
from pathlib import Path

from . import __version__
from .asking.answer import Turn, ask
from .asking.conversation import absolute_links, closing_lines, load_history, questions, save_history
from .asking.library import Library, apply_repository_corrections
from .asking.mcp_server import LibraryTools, check_sdk, serve_stdio
from .core.config import ENGINES, Config, with_embedder, with_overrides
from .core.errors import RefdocError
from .core.processes import Terminated, terminated_on_sigterm
from .core.records import ChunkKind
from .core.serial import to_json
from .core.shards import Shard
from .core.store import store_lock
from .core.store_origin import check_operators_store, operators_store
from .core.terminal import log_to_terminal, say
from .core.text import terminal_text
from .core.trust import TRUST_FLAG, TRUST_VARIABLE, check_default_store, load_repository_config, trusted_by_operator
from .indexing.stats import chunk_stats, format_stats, see_stats
from .llm import HOW_TO_TURN_ON, open_session
from .pipeline import FACTS_NAME, Base, Workspace, build, changes, index, plan, publish, render, skipped_by_reason, summarize
from .pipeline.correct_phase import correct, correction_states
from .rendering.changes import comment_markdown, summary_line
from .rendering.init_files import add_init_command
from .rendering.outputs import check_out_dir, check_store_dir
from .rendering.previews import add_preview_command
from .rendering.render import page_labels
from .search.api_vectors import api_search_index
from .search.embed import matching_embedder
from .search.evaluate import evaluate, format_table, load_queries
from .search.prose import stored_sections
from .search.ranking import MAX_QUERY_CHARS, SearchIndex
from .serving.answering import LibraryAnswering
from .serving.app import Served, ServeOptions, add_serve_arguments, check_host
from .writing.writers import expand_query

log = logging.getLogger("refdoc_site")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    log_to_terminal(logging.WARNING if not args.verbose else logging.INFO)
    logging.getLogger("mkdocs").setLevel(logging.ERROR)
    try:
        with terminated_on_sigterm(), ExitStack() as args.held:
            return args.run(args)
    except RefdocError as error:
        for line in str(error).splitlines():
            say(f"refdoc-site: {line}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        say("refdoc-site: interrupted; the store keeps what was written before", file=sys.stderr)
        return 130
    except Terminated:
        say("refdoc-site: terminated; the store keeps what was written before", file=sys.stderr)
        return 128 + signal.SIGTERM


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="refdoc-site", description="Turn a code repository into a documentation site.")
    parser.add_argument("--version", action="version", version=f"refdoc-site {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    def command(
        name: str, run, help_text: str, out: bool = False, first: tuple[str, str] | None = None, writes: bool = True
    ) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        if first:
            sub.add_argument(first[0], help=first[1])
        sub.add_argument("repo", nargs="?", default=".", type=Path, help="repository to document (default: .)")
        sub.add_argument("--config", type=Path, help="configuration file (default: REPO/refdoc.yml); one outside REPO is trusted")
        sub.add_argument(TRUST_FLAG, action="store_true", help=f"use the endpoints, models, prices, scripts, URLs and language servers the repository's configuration names, and its node_modules/mermaid (also: {TRUST_VARIABLE}=1)")
        sub.add_argument("--store", type=Path, help="store directory (default: REPO/.refdoc)")
        sub.add_argument("--chunk-size", type=int, help="token window size (overrides refdoc.yml)")
        sub.add_argument("--overlap", type=int, help="token window overlap (overrides refdoc.yml)")
        sub.add_argument("-v", "--verbose", action="store_true", help="log each step")
        if out:
            sub.add_argument("--out", type=Path, help="site output directory (default: STORE/site)")
            sub.add_argument("--site-url", help="address the site is served at (overrides refdoc.yml's site_url)")
            sub.add_argument("--engine", choices=ENGINES, help="what builds the HTML site (overrides refdoc.yml's engine; default mkdocs; zensical needs refdoc-site[zensical])")
        sub.set_defaults(run=run, out=None, publishes=out, writes_store=writes)
        return sub

    build_command = command("build", _build, "Run the whole pipeline and the site build (MkDocs, or Zensical).", out=True)
    build_command.add_argument("--dry-run", action="store_true", help="estimate the LLM's requests, tokens and cost; send nothing, build no site")
    build_command.add_argument("--max-cost", type=float, metavar="USD", help="stop sending LLM requests at this cost; the rest is extractive (overrides llm: max_cost)")
    index_command = command("index", _index, "Discover, chunk, analyze and summarize changed files into the store.")
    index_command.add_argument("--shard", metavar="K/N", help="index only shard K of N of the files (split by the hash of their path) into the store, for a CI matrix whose last job merges them with --from-shards")
    for indexing in (build_command, index_command):
        _add_lsp_options(indexing)
        indexing.add_argument("--from-shards", nargs="+", type=Path, default=(), metavar="DIR", help="stores written by `index --shard K/N`: their files count as indexed (the merged store is the one a single job builds)")
        _add_embedder_option(indexing, None, "api: also store API vectors for query --embedder api (default: refdoc.yml's embedding)")
    summarize_command = command("summarize", _summarize, "Build the file, module and system summaries from the store.")
    planning = command("plan", _plan, "Write plans/{request}.md: how to carry out a request, from the code the search finds for it.", out=True, first=("request", "what to change, e.g. \"add rate limiting to the API\""))
    planning.add_argument("--site", action="store_true", help="also rebuild the HTML site (default: render the Markdown pages only)")
    difference = command("diff", _diff, "Compare with a base revision: definitions added, changed and removed, callers affected, security boundaries and cycles gained or lost.")
    difference.add_argument("--markdown", type=Path, metavar="FILE", help="write the change map as a bounded Markdown summary for a pull request comment")
    difference.add_argument("--site-url", default="", metavar="URL", help="the preview site's address: the comment links to its pages")
    difference.add_argument("--json", action="store_true", help="print the change map as JSON")
    for comparing in (build_command, difference):
        comparing.add_argument("--base", metavar="REV", help="base revision to compare with (its store is built in a temporary folder)")
        comparing.add_argument("--base-store", type=Path, metavar="DIR", help="the base's store, already built (e.g. the default branch's cached .refdoc/): skips building it")
    serving = command("serve", _serve, SERVE_HELP, out=True, writes=False)
    add_serve_arguments(serving)
    for writing in (build_command, index_command, summarize_command, planning, difference, serving):
        writing.add_argument("--no-llm", action="store_true", help="extractive summaries even when an LLM is configured")
    command("render", _render, "Render the Markdown pages and mkdocs.yml from the store.", out=True)
    command("stats", _stats, "Print chunking statistics of the store, and the corrections to review.", writes=False)
    correcting = command("correct", _correct, "Write a maintainer's correction into the repository's corrections file (refdoc-corrections.yml), which every build applies.", first=("target", "path#Qualified.name, edge:CALLER -> CALLEE, decision:TITLE or section:PAGE.md#ANCHOR"), writes=False)
    correcting.add_argument("--summary", default="", help="the summary (or section text, or decision) that replaces the generated one")
    correcting.add_argument("--note", default="", help="a note shown beside it")
    correcting.add_argument("--wrong", "--not-a-decision", dest="removes", action="store_true", help="the edge is wrong, or the decision is none: take it out")
    agents = command("mcp", _mcp, "Serve the store to coding agents: a Model Context Protocol server over stdio (search, ask, definitions with callers and callees, summaries).", writes=False)
    agents.add_argument("--no-llm", action="store_true", help="answer `ask` extractively even when an LLM is configured")
    query = command("query", _query, "Search the indexed chunks (keyword and meaning).", first=("text", "what to look for"), writes=False)
    query.add_argument("--top", type=int, default=10, help="number of hits (default 10)")
    query.add_argument("--json", action="store_true", help="print the hits as JSON")
    query.add_argument("--mode", choices=("fused", "sparse", "dense"), default="fused", help="ranking (default fused)")
    query.add_argument("--expand", action="store_true", help="also search the terms the LLM expands the query to (needs an LLM; cached)")
    query.set_defaults(no_llm=False)
    _add_embedder_option(query, "static", EMBEDDER_HELP)
    asking = command("ask", _ask, "Answer a question from the index, citing its sources (with an LLM; else the best matches).", first=("question", "what to ask; - to read the questions from stdin (with --chat)"), writes=False)
    asking.add_argument("--json", action="store_true", help="print the answer as JSON (one object a line with --chat)")
    asking.add_argument("--chat", action="store_true", help="then read more questions from stdin, one a line, keeping the conversation")
    asking.add_argument("--history", type=Path, metavar="FILE", help="continue the conversation saved in FILE, and save this one there")
    asking.add_argument("--no-llm", action="store_true", help="answer with the best matches even when an LLM is configured")
    add_init_command(commands)
    evaluation = commands.add_parser("eval", help="Score the search on a labelled query set.")
    evaluation.add_argument("queries", type=Path, help="labelled queries, JSON lines")
    evaluation.add_argument("--corpus", type=Path, required=True, help="folder the queries are about")
    evaluation.add_argument("--store", type=Path, help="store directory (default: a temporary one)")
    evaluation.add_argument("--modes", default="sparse,dense,fused", help="comma-separated rankings to score")
    _add_embedder_option(evaluation, "static", EMBEDDER_HELP)
    evaluation.add_argument("-v", "--verbose", action="store_true")
    evaluation.set_defaults(run=_eval)
    add_preview_command(commands)
    return parser


SERVE_HELP = "Serve the site on this machine, rebuilt when the repository changes, with an Ask panel answering from the store."
EMBEDDER_HELP = "dense side: the static model the site ships (default), or the API embedder's stored vectors"


def _add_embedder_option(sub: argparse.ArgumentParser, default: str | None, help_text: str) -> None:
    sub.add_argument("--embedder", choices=("static", "api"), default=default, help=help_text)


def _add_lsp_options(sub: argparse.ArgumentParser) -> None:
    """`--lsp`, `--no-lsp`, `--lsp-only`, `--lsp-budget`: the `lsp` settings of refdoc.yml for one run."""
    modes = sub.add_mutually_exclusive_group()
    modes.add_argument("--lsp", dest="lsp", action="store_const", const="on", help="analyze with language servers where they run, then tree-sitter and regex (slower)")
    modes.add_argument("--no-lsp", dest="lsp", action="store_const", const="off", help="analyze with tree-sitter and regex only (the default)")
    modes.add_argument("--lsp-only", dest="lsp", action="store_const", const="only", help="analyze with language servers alone")
    sub.add_argument("--lsp-budget", dest="lsp_budget", type=int, metavar="SECONDS", help="time the language servers may take in this build; then tree-sitter (default: refdoc.yml's lsp_budget, 600; 0: no limit)")


def _workspace(args: argparse.Namespace) -> Workspace:
    """The command's workspace, its folders checked; a command that writes the store holds
    its lock from here to its end (it waits while another command holds it)."""
    repo = args.repo
    if not repo.is_dir():
        raise RefdocError(f"{repo}: not a directory; pass the repository folder to document")
    check_default_store(repo, args.store, trusted_by_operator(args.trust_config))
    lsp = getattr(args, "lsp", None)
    command_line = {key for key in ("lsp", "site_url") if getattr(args, key, None) is not None}
    from_file = load_repository_config(repo, args.config, trust_flag=args.trust_config, command_line=command_line)
    config = with_overrides(
        from_file, chunk_size=args.chunk_size, chunk_overlap=args.overlap, lsp=lsp,
        lsp_budget=getattr(args, "lsp_budget", None), site_url=getattr(args, "site_url", None),
        engine=getattr(args, "engine", None),
    )
    config = with_embedder(config, getattr(args, "embedder", None))
    workspace = Workspace.create(repo, config, args.store, args.out)
    if args.publishes:
        check_out_dir(workspace.out_dir, workspace.repo, workspace.store_dir)
    check_store_dir(workspace.store_dir, workspace.repo)
    if args.writes_store:
        args.held.enter_context(store_lock(workspace.store_dir, args.command))
        args.held.enter_context(operators_store(workspace.repo, workspace.store_dir, default=args.store is None))
    else:
        check_operators_store(workspace.repo, workspace.store_dir, default=args.store is None)
    return workspace


@contextmanager
def _llm_session(args: argparse.Namespace, workspace: Workspace, account: bool = True):
    """The run's LLM session (or None), its line of notice, and (unless not `account`) its
    account at the end."""
    max_cost = getattr(args, "max_cost", None)
    if max_cost is not None and max_cost < 0:
        raise RefdocError(f"--max-cost: expected a cost in USD of at least 0, got {max_cost:g}")
    session, notice = open_session(
        workspace.config, workspace.store_dir, enabled=not args.no_llm,
        dry_run=getattr(args, "dry_run", False), max_cost=max_cost,
    )
    if notice == HOW_TO_TURN_ON:
        if args.command == "build":  # once a build; the phases run alone stay quiet
            say(notice)
    elif notice:
        say(notice, file=sys.stderr)
    try:
        yield session
    finally:
        if session is not None:
            session.close()
            for line in session.report.lines() if account else ():
                say(line)


def _build(args: argparse.Namespace) -> int:
    workspace = _workspace(args)
    with _llm_session(args, workspace) as llm:
        if args.dry_run:
            if llm is None:
                say("dry run: no LLM configured, so nothing would be sent")
                return 0
            _print_index(index(workspace, llm=llm))
            summarize(workspace, llm)
            say("dry run: no request sent, no site built")
            return 0
        report = build(workspace, llm=llm, base=_base(args), from_shards=args.from_shards)
        _print_index(report.index)
        timings = ", ".join(f"{name} {seconds:.1f}s" for name, seconds in report.seconds.items())
        taken = f" ({report.taken} of them taken from the last build)" if report.taken else ""
        say(f"site: {report.pages} pages built{taken} in {timings}")
        say(f"open {report.site_dir / 'index.html'}")
    return 0


def _base(args: argparse.Namespace) -> Base | None:
    """What `--base` and `--base-store` name, or None; a store wins over a revision (it is the
    revision's store, built already)."""
    if args.base_store is not None:
        if not args.base_store.is_dir():
            raise RefdocError(f"--base-store {args.base_store}: not a directory; pass the base's .refdoc store folder")
        return Base(args.base or "", args.base_store.resolve())
    if args.base is not None:
        if not args.base.strip() or args.base.startswith("-"):
            raise RefdocError(f"--base {args.base!r}: not a revision; pass a branch, tag or commit, e.g. --base origin/main")
        return Base(args.base)
    return None


def _diff(args: argparse.Namespace) -> int:
    base = _base(args)
    if base is None:
        raise RefdocError("diff: say what to compare with: --base REV (e.g. origin/main) or --base-store DIR")
    workspace = _workspace(args)
    with _llm_session(args, workspace) as llm:  # the store's summaries stay the model's when it wrote them
        change_map = changes(workspace, base, llm)
    language = workspace.config.language
    if args.markdown is not None:
        try:
            args.markdown.write_text(comment_markdown(change_map, language, args.site_url or workspace.config.site_url), encoding="utf-8")
        except OSError as error:
            raise RefdocError(f"--markdown {args.markdown}: cannot write it ({error.strerror}); pass a file in an existing folder") from None
    if args.json:
        say(json.dumps(to_json(change_map), ensure_ascii=False, indent=1))
    else:
        say(summary_line(change_map, page_labels(language), shown=str))
    return 0


def _index(args: argparse.Namespace) -> int:
    shard = Shard.parse(args.shard) if args.shard is not None else None
    workspace = _workspace(args)
    with _llm_session(args, workspace) as llm:
        _print_index(index(workspace, llm=llm, shard=shard, from_shards=args.from_shards))
    return 0


def _summarize(args: argparse.Namespace) -> int:
    workspace = _workspace(args)
    with _llm_session(args, workspace) as llm:
        hierarchy = summarize(workspace, llm)
    say(f"summaries: {len(hierarchy.files)} files, {len(hierarchy.modules)} modules, 1 system")
    say(hierarchy.system.text)
    return 0


def _render(args: argparse.Namespace) -> int:
    workspace = _workspace(args)
    if not (workspace.store_dir / FACTS_NAME).exists():
        summarize(workspace)
    pages = render(workspace)
    say(f"rendered {len(pages)} pages into {workspace.project_dir / 'docs'}")
    say(f"build them with: mkdocs build -f {workspace.project_dir / 'mkdocs.yml'}")
    return 0


def _stats(args: argparse.Namespace) -> int:
    workspace = _workspace(args)
    state = workspace.store.load()
    if not state.files:
        raise RefdocError(f"{workspace.store.index_path}: no indexed files; run `refdoc-site index` first")
    stats = chunk_stats(
        state.documents,
        {path: entry.language for path, entry in state.files.items()},
        skipped_by_reason(workspace),
        workspace.config.chunk_size,
        {path: entry.secrets_redacted for path, entry in state.files.items() if entry.secrets_redacted},
        {path: entry.secret_rules for path, entry in state.files.items() if entry.secret_rules},
        sorted(path for path, entry in state.files.items() if entry.unparsed),
    )
    say("\n".join([format_stats(stats), *correction_states(workspace.store)]))
    return 0


def _correct(args: argparse.Namespace) -> int:
    workspace = _workspace(args)
    written = correct(workspace, args.target, args.summary, args.note, args.removes)
    say(f"{workspace.config.corrections}: {written.kind.value} {written.target!r} corrected (source hash {written.hash}); the next build applies it")
    return 0


def _search_text(text: str, command: str, example: str) -> str:
    """The query or request, stripped; an empty or overlong one is a one-line error."""
    text = text.strip()
    if not text:
        raise RefdocError(f"{command}: empty; say what to look for, e.g. refdoc-site {command} \"{example}\"")
    if len(text) > MAX_QUERY_CHARS:
        raise RefdocError(f"{command}: {len(text)} characters, more than {MAX_QUERY_CHARS}; shorten it")
    return text


def _plan(args: argparse.Namespace) -> int:
    request = _search_text(args.request, "plan", "add rate limiting to the API")
    workspace = _workspace(args)
    if not workspace.load_state().files:
        raise RefdocError(f"{workspace.store.index_path}: no indexed files; run `refdoc-site index` (or `build`) first")
    with _llm_session(args, workspace) as llm:
        record, page = plan(workspace, request, llm)
        say(f"plan: {page}")
        if llm is None:
            say("plan: no LLM configured, so the page lists where the request lands in the code and proposes no changes; set OPENAI_API_KEY (or OPENAI_BASE_URL for a compatible server) to have the doc model write the plan")
        elif not record.model:
            say("plan: the doc model gave no usable plan (see below), so the page lists where the request lands in the code", file=sys.stderr)
        if args.site:
            say(f"open {publish(workspace) / 'index.html'}")
        else:
            say(f"build the site with: refdoc-site build (or mkdocs build -f {workspace.project_dir / 'mkdocs.yml'})")
    return 0


def _query(args: argparse.Namespace) -> int:
    text = _search_text(args.text, "query", "parse the config")
    if args.top < 1:
        raise RefdocError("--top: must be at least 1")
    workspace = _workspace(args)
    state = workspace.store.load()
    if not state.documents:
        raise RefdocError(f"{workspace.store.index_path}: no indexed chunks; run `refdoc-site index` first")
    apply_repository_corrections(workspace, state.documents)  # searched as the site's search data holds them
    if args.expand:
        text = _expanded(args, workspace, text)
    search_index, embedder = _dense_side(args.embedder, workspace, state, args.mode)
    hits = search_index.search(text, args.top, args.mode, embedder)
    if args.json:
        say(json.dumps([hit.to_dict() for hit in hits], ensure_ascii=False, indent=1))
    elif not hits:
        say(f"no matches for {text!r}")
    else:
        if not any(hit.sparse for hit in hits) and args.mode != "dense":
            say(f"no keyword matches for {text!r}; nearest by meaning:")
        for rank, hit in enumerate(hits, start=1):
            place = hit.chunk_id if hit.kind == ChunkKind.PAGE.value else f"{hit.path}:{hit.start_line}-{hit.end_line}"
            say(f"{rank:>3}. {hit.score:.3f}  {place}  {hit.symbol}  ({hit.kind})")
    return 0


def _ask(args: argparse.Namespace) -> int:
    workspace = _workspace(args)
    library = Library.open(workspace)
    history = load_history(args.history) if args.history else []
    site_url = workspace.config.site_url

    def print_piece(piece: str) -> None:
        _print_piece(absolute_links(piece, site_url))

    with _llm_session(args, workspace, account=False) as llm:
        for question in questions(args.question, sys.stdin if args.chat or args.question.strip() == "-" else None):
            answer = ask(question, library, llm, list(history), on_text=None if args.json else print_piece)
            history.append(Turn(answer.question, answer.text))
            if args.history:
                save_history(args.history, history)
            if args.json:
                say(json.dumps(answer.to_dict(), ensure_ascii=False, indent=None if args.chat else 1), flush=True)
            else:
                say("".join(f"\n{line}" for line in closing_lines(answer)), flush=True)
    return 0


def _print_piece(piece: str) -> None:
    sys.stdout.write(terminal_text(piece))
    sys.stdout.flush()


def _mcp(args: argparse.Namespace) -> int:
    """Open the store's library (a missing store fails here, in one line), then serve until
    the client disconnects. Only the protocol goes to stdout."""
    check_sdk()
    workspace = _workspace(args)
    with redirect_stdout(sys.stderr):
        library = Library.open(workspace)
    with _llm_session(args, workspace, account=False) as llm:
        serve_stdio(LibraryTools(library, llm))
    return 0


def _expanded(args: argparse.Namespace, workspace: Workspace, text: str) -> str:
    """The query and the terms the LLM expands it to, said on stderr; the query alone without an LLM."""
    with _llm_session(args, workspace, account=False) as llm:
        if llm is None:
            say("query: --expand needs an LLM (set OPENAI_API_KEY, or OPENAI_BASE_URL for a compatible server); searching the words as given", file=sys.stderr)
            return text
        terms = expand_query(llm, text)
    say(f"expanded: {', '.join(terms) if terms else 'no terms (the LLM gave none); searching the words as given'}", file=sys.stderr)
    return " ".join([text, *terms])


def _dense_side(choice: str, workspace: Workspace, state, mode: str = "fused", sections: bool = True):
    """The index and the query embedder for the dense side: the static model's vectors
    over what the site's search holds (the chunks and the prose pages' sections the last
    render gave it), or with `--embedder api` the store's API vectors of the chunks and the
    API for the query. `eval` ranks the chunks alone (`sections` False): its labels are definitions."""
    if choice == "api" and mode != "sparse":
        return api_search_index(SearchIndex.build(state.documents), workspace.store_dir, workspace.config.embedding)
    embedder = matching_embedder(state)
    pages = stored_sections(workspace.store, with_vectors=embedder is not None) if sections else []
    return SearchIndex.build(state.documents + pages), embedder


def _serve(args: argparse.Namespace) -> int:
    options = ServeOptions.from_arguments(args)
    warning = check_host(options)
    workspace = _workspace(args)
    with _llm_session(args, workspace) as llm:
        say = functools.partial(print, flush=True)
        Served(workspace, llm, LibraryAnswering(workspace, llm), options, say).run(warning)
    return 0


def _eval(args: argparse.Namespace) -> int:
    queries = load_queries(args.queries)
    if not args.corpus.is_dir():
        raise RefdocError(f"{args.corpus}: not a directory; pass the corpus folder with --corpus")
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    with tempfile.TemporaryDirectory() as temporary:
        store = args.store or Path(temporary) / "store"
        workspace = Workspace.create(args.corpus, with_embedder(Config(), args.embedder), store, Path(temporary) / "site")
        index(workspace)
        state = workspace.store.load()
        search_index, embedder = _dense_side(args.embedder, workspace, state, sections=False)
    results = {mode: evaluate(search_index, queries, mode, embedder) for mode in modes if mode == "sparse" or embedder}
    say(f"{args.queries.name}: {len(queries)} queries over {len(state.files)} files, {len(state.documents)} chunks")
    say(format_table(results))
    return 0


def _print_index(report) -> None:
    skipped = sum(report.skipped.values())
    merged = f", {report.merged} of them from shards" if report.merged else ""
    say(
        f"index: {report.files} files ({report.reprocessed} processed, {report.reused} unchanged{merged}, "
        f"{report.removed} removed), {report.chunks} chunks, {skipped} skipped"
        + (f", {len(report.failed)} failed" if report.failed else "")
    )
    for line in report.failed[:20]:
        say(f"  failed: {line}", file=sys.stderr)
    for line in see_stats(report.secrets_redacted, report.unparsed):
        say(line)
