"""The cheap gates in front of the effect and security patterns never hide a match."""

from __future__ import annotations

from pathlib import Path

import pytest

from refdoc_site.languages import effects, patterns

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = [
    "with open(path) as f: f.write(x)",
    "requests.get(url); socket.socket(); fetch('/api')",
    "cursor.execute('SELECT * FROM users'); db.Query(q); psycopg_pool.connect()",
    "subprocess.run(['ls']); os.system('x'); exec.Command('go')",
    "global counter\nos.environ['A'] = '1'",
    "def login(password): jwt.decode(token); hashlib.sha256(); pickle.loads(data)",
    "@app.route('/x')\ndef view(): cursor.execute(\"select 1\")",
    "send_file(os.path.join(root, request.args['f'])); fs.readFile(path.join(d, req.params.name))",
]


def texts() -> list[str]:
    files = sorted((ROOT / "refdoc_site").rglob("*.py")) + sorted((ROOT / "tests" / "fixtures").rglob("*.*"))
    return SAMPLES + [path.read_text(encoding="utf-8", errors="replace") for path in files if path.is_file()]


RULE_SAMPLES = {
    "python": "with open(path) as f: shutil.copy(a, b); os.remove(p); requests.get(u); httpx.get(u); aiohttp.ClientSession(); "
    "urllib.request.urlopen(u); socket.socket(); http.client.HTTPSConnection(h); db.cursor(); Model.objects.filter(); "
    "subprocess.run(x); os.system(c)\nglobal counter",
    "javascript": "fs.readFileSync(p); fetch(u); axios.get(u); http.createServer(h); client.query(q); exec(c); window.x = 1",
    "go": "os.ReadFile(p); ioutil.ReadFile(p); filepath.Walk(r, f); http.Get(u); net.Dial(n, a); db.Query(q); "
    "exec.Command(c); os.Setenv(k, v)",
    "rust": "std::fs::read(p); TcpStream::connect(a); reqwest::get(u); conn.execute(q); Command::new(c); static mut X: u8 = 0;",
    "java": "new FileInputStream(f); new Socket(h, p); stmt.executeQuery(q); new ProcessBuilder(c); System.setProperty(k, v);",
    "csharp": "File.ReadAllText(p); new HttpClient(); cmd.ExecuteReader(); Process.Start(c); Environment.SetEnvironmentVariable(k, v);",
    "c": "fopen(p, m); socket(a, b, c); curl_easy_perform(h); sqlite3_exec(d, q, 0, 0, 0); system(c); setenv(k, v, 1);",
    "ruby": "File.read(p); Net::HTTP.get(u); system(c)",
    "php": "file_get_contents($p); curl_exec($h); new PDO($dsn); shell_exec($c);",
    "kotlin": "File(p).readText(); ProcessBuilder(c)",
    "scala": "Source.fromFile(p); sys.process.Process(c)",
    "swift": "FileManager.default.removeItem(at: u); URLSession.shared.dataTask(with: u)",
    "lua": "io.open(p); os.execute(c)",
}
EVERY_EFFECT = ("c", "csharp", "go", "java", "javascript", "python", "rust")
"""Languages that have a rule for each of the five effects."""
ALL_IMPORTS = [library for rule in effects.EFFECT_RULES for library in rule.imports]


@pytest.mark.parametrize("index", range(len(effects.EFFECT_RULES)))
def test_effect_rule_gate_covers_every_match(index: int) -> None:
    rule = effects.EFFECT_RULES[index]
    samples = [RULE_SAMPLES[language] for language in rule.languages if language in RULE_SAMPLES]
    matched = 0
    for text in samples + texts():
        for match in rule.pattern.finditer(text):
            matched += 1
            assert any(piece in match.group(0) for piece in rule.gate), match.group(0)
    assert matched, rule.pattern.pattern


@pytest.mark.parametrize("language", EVERY_EFFECT)
def test_every_effect_has_a_rule_per_language(language: str) -> None:
    found = effects.effects_in(RULE_SAMPLES[language], language, ALL_IMPORTS)
    expected = ["file", "network", "database", "subprocess", "global state"]
    assert found == expected


def test_a_rule_naming_a_library_needs_an_import_of_it() -> None:
    cobra = "func (c *Command) ExecuteC() (cmd *Command, err error) {\n\terr = cmd.execute(flags)\n}"
    assert effects.effects_in(cobra, "go", ["fmt", "github.com/spf13/pflag"]) == []
    flag_set = "func hasNoOptDefVal(name string, fs *flag.FlagSet) bool {\n\tflag := fs.Lookup(name)\n}"
    assert effects.effects_in(flag_set, "go", ["github.com/spf13/pflag"]) == []
    assert effects.effects_in("fs.readFile(p, cb)", "javascript", []) == []
    assert effects.effects_in("fs.readFile(p, cb)", "javascript", ["fs"]) == ["file"]
    assert effects.effects_in("rows, err := db.Query(q)", "go", ["database/sql"]) == ["database"]
    assert effects.effects_in("rows, err := db.Query(q)", "go", ["github.com/example/cache"]) == []
    assert effects.effects_in("fs.readFile(p)", "go", ["fs"]) == []  # a rule of another language never applies


@pytest.mark.parametrize("reason", [reason for reason, _ in patterns.SECURITY])
def test_security_gate_covers_every_match(reason: str) -> None:
    pattern = dict(patterns.SECURITY)[reason]
    matched = 0
    for text in texts():
        for match in pattern.finditer(text):
            matched += 1
            assert any(piece in match.group(0).lower() for piece in patterns.SECURITY_GATES[reason]), match.group(0)
    assert matched
