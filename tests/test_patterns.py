"""The cheap gates in front of the effect and security patterns never hide a match."""

from __future__ import annotations

from pathlib import Path

import pytest

from refdoc_site.languages import patterns

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


@pytest.mark.parametrize("name", sorted(patterns.EFFECTS))
def test_effect_gate_covers_every_match(name: str) -> None:
    matched = 0
    for text in texts():
        for match in patterns.EFFECTS[name].finditer(text):
            matched += 1
            assert any(piece in match.group(0) for piece in patterns.EFFECT_GATES[name]), match.group(0)
    assert matched


@pytest.mark.parametrize("reason", [reason for reason, _ in patterns.SECURITY])
def test_security_gate_covers_every_match(reason: str) -> None:
    pattern = dict(patterns.SECURITY)[reason]
    matched = 0
    for text in texts():
        for match in pattern.finditer(text):
            matched += 1
            assert any(piece in match.group(0).lower() for piece in patterns.SECURITY_GATES[reason]), match.group(0)
    assert matched
