"""The overview's flows where the call graph alone leads astray, on small inline
repositories shaped like the ones that did (understanding/flows.py, dispatch.py): click's
`main` (a context made, then an abstract method's override invoked), requests'
`Session.request` (a request prepared, then sent), and an argparse program whose `main`
runs `args.run(args)`."""

from __future__ import annotations

from pathlib import Path

from helpers import write_repo

from refdoc_site.core.config import Config
from refdoc_site.core.serial import from_json
from refdoc_site.core.workspace import ORIENTATION_NAME
from refdoc_site.pipeline import Workspace, index, summarize
from refdoc_site.understanding.dispatch import registered_functions
from refdoc_site.understanding.orientation import Orientation

COMMANDS = {
    "pyproject.toml": '[project]\nname = "tinycli"\ndescription = "Commands."\n',
    "tinycli/__init__.py": "from .core import Command\n",
    "tinycli/core.py": '''
        """Commands and the context they run in."""


        class Context:
            """What one invocation of a command knows."""

            def __init__(self, command):
                self.command = command
                self.args = []

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

            def forward(self, callback):
                """Call the command's callback with the parsed arguments."""
                return self.call_with(callback, self.args)

            def call_with(self, callback, args):
                return self.wrap(callback)(*args)

            def wrap(self, callback):
                return callback


        class BaseCommand:
            """A command: parse the arguments, then invoke."""

            def __call__(self, *args):
                """Run the command as a program."""
                return self.main(*args)

            def main(self, *args):
                """Make the context, then invoke the command in it."""
                with self.make_context(list(args)) as ctx:
                    return self.invoke(ctx)

            def make_context(self, args):
                """Parse the arguments into a new context."""
                ctx = Context(self)
                self.parse_args(ctx, args)
                self.check_args(ctx)
                return ctx

            def check_args(self, ctx):
                return self.count_args(ctx) >= 0

            def count_args(self, ctx):
                return len(ctx.args)

            def parse_args(self, ctx, args):
                raise NotImplementedError

            def invoke(self, ctx):
                raise NotImplementedError


        class Command(BaseCommand):
            """A command with a callback."""

            def __init__(self, callback):
                self.callback = callback

            def parse_args(self, ctx, args):
                ctx.args = args
                return args

            def invoke(self, ctx):
                """Invoke the callback in the context."""
                return ctx.forward(self.callback)
    ''',
}

SESSIONS = {
    "pyproject.toml": '[project]\nname = "tinyhttp"\ndescription = "HTTP."\n',
    "tinyhttp/__init__.py": "from .api import get, post\n",
    "tinyhttp/api.py": '''
        """The functions most callers use."""
        from .sessions import Session


        def request(method, url):
            """Send a request with a new session."""
            session = Session()
            return session.request(method, url)


        def get(url):
            """Send a GET request."""
            return request("GET", url)


        def post(url):
            """Send a POST request."""
            return request("POST", url)
    ''',
    "tinyhttp/sessions.py": '''
        """Sessions: prepare a request, then send it through an adapter."""
        from .adapters import HTTPAdapter
        from .models import PreparedRequest, Request


        class Session:
            """Settings kept across requests."""

            def request(self, method, url):
                """Build, prepare and send a request."""
                req = Request(method, url)
                prep = self.prepare_request(req)
                return self.send(prep)

            def prepare_request(self, request):
                """The request with the session's settings merged in."""
                p = PreparedRequest()
                p.prepare(request.method, request.url)
                return p

            def send(self, request):
                """Send a prepared request through its adapter."""
                adapter = self.get_adapter(request.url)
                return adapter.send(request)

            def get_adapter(self, url):
                return HTTPAdapter()
    ''',
    "tinyhttp/models.py": '''
        """Requests and prepared requests."""


        class Request:
            def __init__(self, method, url):
                self.method, self.url = method, url


        class PreparedRequest:
            def prepare(self, method, url):
                self.prepare_method(method)
                self.prepare_url(url)

            def prepare_method(self, method):
                self.method = method.upper()

            def prepare_url(self, url):
                self.url = url.strip()
    ''',
    "tinyhttp/adapters.py": '''
        """Transport adapters."""


        class HTTPAdapter:
            """Sends requests over a connection pool."""

            def send(self, request):
                """Send the request on a pooled connection."""
                conn = self.get_connection(request.url)
                return self.read_response(conn)

            def get_connection(self, url):
                return url

            def read_response(self, conn):
                return self.build_response(conn)

            def build_response(self, conn):
                return conn
    ''',
}

PROGRAM = {
    "pyproject.toml": '[project]\nname = "tool"\ndescription = "A tool."\n\n[project.scripts]\ntool = "tool.cli:main"\n',
    "tool/__init__.py": "",
    "tool/cli.py": '''
        """The command line."""
        import argparse

        from .pipeline import build, serve


        def main(argv=None):
            """Parse the command line and run the command it names."""
            parser = _parser()
            args = parser.parse_args(argv)
            return args.run(args)


        def _parser():
            parser = argparse.ArgumentParser(prog="tool")
            commands = parser.add_subparsers(required=True)

            def command(name, run, help_text):
                sub = commands.add_parser(name, help=help_text)
                sub.add_argument("repo")
                sub.set_defaults(run=run)
                return sub

            command("build", _build, "Build it, all of it.")
            command("serve", _serve, "Serve it.")
            return parser


        def _build(args):
            return build(args.repo)


        def _serve(args):
            return serve(args.repo)
    ''',
    "tool/pipeline.py": '''
        """The phases."""


        def build(repo):
            """Index, then render."""
            pages = index(repo)
            return render(pages)


        def serve(repo):
            return listen(repo)


        def listen(repo):
            return repo


        def index(repo):
            return [repo]


        def render(pages):
            return write(pages)


        def write(pages):
            return flush(pages)


        def flush(pages):
            return len(pages)
    ''',
    "tool/answers.py": '''
        """Answers, as a callable object."""


        class Answering:
            """Answers a question."""

            def __call__(self, question):
                return self.ask(question)

            def ask(self, question):
                return self.cite(self.search(question))

            def search(self, question):
                return [question]

            def cite(self, hits):
                return self.format(hits)

            def format(self, hits):
                return hits
    ''',
}


def flows_of(tmp_path: Path, files: dict[str, str]) -> Orientation:
    repo = write_repo(tmp_path / "repo", files)
    workspace = Workspace.create(repo, Config(site_name="Tiny"), tmp_path / "store", tmp_path / "site")
    index(workspace)
    summarize(workspace)
    return from_json(Orientation, workspace.store.read_json(ORIENTATION_NAME))


def steps(flow) -> list[str]:
    return [step.definition.symbol for step in flow.steps]


def test_a_made_context_is_handed_on_and_an_abstract_method_stands_for_its_override(tmp_path: Path) -> None:
    """click: `main` makes the context (which reaches more code: parsing, checks) and then
    invokes the command in it; `BaseCommand.invoke` only raises, `Command.invoke` runs."""
    orientation = flows_of(tmp_path, COMMANDS)
    flow = next(f for f in orientation.flows if f.entry.definition.symbol == "BaseCommand.__call__")
    assert steps(flow)[:4] == ["BaseCommand.__call__", "BaseCommand.main", "Command.invoke", "Context.forward"]
    assert flow.steps[2].dispatch == "override"
    entries = {entry.definition.symbol for entry in orientation.entry_points}
    assert "Command.parse_args" not in entries, "called wherever BaseCommand.parse_args is: no entry point"


def test_a_prepared_request_is_sent_and_wrappers_join_at_the_call_they_share(tmp_path: Path) -> None:
    """requests: `prepare_request` shares a word with `request`, but only makes what `send`
    takes; `get` and `post` both hand on to `request`, so the flow is told from there."""
    orientation = flows_of(tmp_path, SESSIONS)
    told = [steps(flow) for flow in orientation.flows]
    assert told[0][:4] == ["request", "Session.request", "Session.send", "HTTPAdapter.send"], told
    assert not [flow for flow in told[1:] if flow[1:2] == ["request"]], "get and post are one flow"


def test_main_runs_the_command_its_parser_registers(tmp_path: Path) -> None:
    """argparse: `args.run(args)` runs what `set_defaults(run=run)` registered, `run` being
    the parameter `command("build", _build, …)` fills; of the two registered, `_build`
    reaches the most."""
    orientation = flows_of(tmp_path, PROGRAM)
    first = orientation.flows[0]
    assert steps(first) == ["main", "_build", "build", "render", "write"], [steps(f) for f in orientation.flows]
    assert first.steps[1].dispatch == "registered"


def test_registered_functions_follow_a_forwarded_parameter_and_ignore_text_that_does_not_parse() -> None:
    source = (
        "def parser():\n"
        "    def command(name, run):\n"
        "        sub.set_defaults(run=run)\n"
        "    command('a', _a)\n"
        "    command(name='b', run=_b)\n"
        "    other.set_defaults(run=_c)\n"
    )
    assert registered_functions([source, "def broken(:\n    x(run=_d)\n"], "run") == ["_a", "_b", "_c"]
    assert registered_functions(["(" * 200_000 + "run=x"], "run") == []


def test_a_call_on_an_outside_package_is_no_step_though_a_method_bears_its_name(tmp_path: Path) -> None:
    """flask's `get_load_dotenv` calls `os.environ.get`: the project's one `get` (a route
    decorator) matched by name made `Flask.run` look like the start of a long flow."""
    orientation = flows_of(tmp_path, {
        "pyproject.toml": '[project]\nname = "web"\ndescription = "Web."\n',
        "web/__init__.py": "",
        "web/settings.py": '''
            import os


            def get_settings():
                """Read the settings from the environment."""
                return os.environ.get("WEB_SETTINGS")
        ''',
        "web/routes.py": '''
            class Routes:
                def get(self, rule):
                    """Register a GET route."""
                    return self.route(rule, "GET")

                def route(self, rule, method):
                    return self.add(rule, method)

                def add(self, rule, method):
                    return (rule, method)
        ''',
    })
    assert not [flow for flow in orientation.flows if steps(flow)[0] == "get_settings"], [steps(f) for f in orientation.flows]
