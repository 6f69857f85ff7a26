"""Regular-expression knowledge per language: imports, calls, async, raising, effects.

This is the syntax tier of the analysis and the last resort for files no grammar parses.
Each table is keyed by language name; `"*"` rows apply to every language.
"""

from __future__ import annotations

import re

M = re.MULTILINE

IMPORTS: dict[str, tuple[re.Pattern[str], ...]] = {
    "python": (
        re.compile(r"^[ \t]*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)", M),
        # Each run of blanks is read once: `(?=(\s+))\N` takes it whole, as an atomic group would
        # (Python 3.10 has none), and the names end at a name. Before, the blanks around the
        # module and the names could be split every way, and `[\w\s,*]+?` before `\s*$` re-read
        # a run of blanks from each blank (a line of 5,000 blanks: 2.8 s).
        re.compile(
            r"^[ \t]*from(?=(\s+))\1(?P<module>\.*[\w.]*)(?=(\s+))\3import(?=(\s+))\4\(?(?=(\s*))\5"
            r"(?P<names>[\w,*](?:[\w\s,*]*?[\w,*])??)(?=([^\S\n]*))\7\)?\s*$",
            M,
        ),
    ),
    "javascript": (
        # a statement's names run over lines, but not into the next statement: each `export` without
        # `from` used to read on to the end of the text (5,000 lines of `export a`: 44 s)
        re.compile(r"""^[ \t]*(?:import|export)\b(?:[^'"`;\n]|\n(?![ \t]*(?:import|export)\b))*?\bfrom\s*['"]([^'"]+)['"]""", M),
        re.compile(r"""^[ \t]*import\s*['"]([^'"]+)['"]""", M),
        re.compile(r"""\brequire\(\s*['"]([^'"]+)['"]\s*\)"""),
        re.compile(r"""\bimport\(\s*['"]([^'"]+)['"]\s*\)"""),
    ),
    "go": (
        re.compile(r"""^[ \t]*import\s+(?:\w+\s+)?"([^"]+)\"""", M),
        re.compile(r"""^[ \t]*(?:[\w.]+\s+)?"([^"]+)"\s*$""", M),
    ),
    "rust": (
        re.compile(r"^[ \t]*(?:pub\s+)?use\s+([\w:]+)", M),
        re.compile(r"^[ \t]*(?:pub\s+)?mod\s+(\w+)\s*;", M),
        re.compile(r"^[ \t]*extern\s+crate\s+(\w+)", M),
    ),
    "java": (re.compile(r"^[ \t]*import\s+(?:static\s+)?([\w.]+)", M),),
    "csharp": (re.compile(r"^[ \t]*using\s+(?:static\s+)?([\w.]+)\s*;", M),),
    "c": (re.compile(r"""^[ \t]*#\s*include\s*[<"]([^>"]+)[>"]""", M),),
    "ruby": (re.compile(r"""^[ \t]*require(?:_relative)?\s*\(?\s*['"]([^'"]+)['"]""", M),),
    "php": (re.compile(r"^[ \t]*use\s+([\w\\]+)", M),),
}
IMPORTS["typescript"] = IMPORTS["tsx"] = IMPORTS["javascript"]
IMPORTS["cpp"] = IMPORTS["c"]

CALLED_NAME = re.compile(r"(?<![\w$])[A-Za-z_$][\w$]*(?:\s*(?:\.|::|->)\s*[A-Za-z_$][\w$]*)*")
"""A possibly dotted name: a call when `CALL_OPENING` follows it. Two patterns rather than
one, so that a long dotted run that is no call is read once, not again from each name in it."""
CALL_OPENING = re.compile(r"\s*(?:<[\w\s,<>]{0,200}>\s*)?\(")
"""What makes the name before it a call: an opening parenthesis, after type arguments."""

NOT_CALLS = frozenset(
    """if for while switch catch return function def class elif with and or not in is
    sizeof typeof new delete await yield lambda print_function super assert except raise
    throw match case async func fn unless until defined void""".split()
)

_C_DIRECTIVE = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", M)
"""A preprocessor line with its backslash continuations: a macro's body is a definition."""
_C_PROTOTYPE = re.compile(
    r"^[ \t]*(?!(?:return|else|do|case|goto|throw|delete|new|co_return|co_yield)\b)"
    # a return type: words, `::`, `<…>`, `*`/`&`, or a macro wrapping one (`CJSON_PUBLIC(cJSON *)`)
    r"(?:(?:[A-Za-z_][\w:]*(?:<[^<>;(){}\n]*>)?|[A-Z_][A-Z0-9_]*\([^()\n]*\))[^\S\n]*[*&]*[^\S\n]+[*&]*){1,6}"
    r"~?[A-Za-z_][\w:]*[^\S\n]*\([^;{}]*\)"
    r"(?:[^\S\n]*(?:const|override|final|noexcept|=[^\S\n]*(?:0|default|delete)|[A-Z_][A-Z0-9_]*(?:\([^()\n]*\))?))*"
    r"[^\S\n]*;",
    M,
)
"""A declaration: a type, then a name and its parameters, then `;` (`static int f(int);`,
`Status Delete(const Slice&) override;`); a call statement has no type before its name."""
NOT_CALL_TEXT: dict[str, tuple[re.Pattern[str], ...]] = {
    "c": (_C_DIRECTIVE, _C_PROTOTYPE),
    "cpp": (_C_DIRECTIVE, _C_PROTOTYPE),
}
"""Text blanked before the regular expressions look for calls: it declares, never calls."""

ASYNC: dict[str, re.Pattern[str]] = {
    "python": re.compile(r"^\s*(?:@[^\n]*\n\s*)*async\s+def\b"),
    "javascript": re.compile(r"\basync\b"),
    "rust": re.compile(r"\basync\s+fn\b"),
    "csharp": re.compile(r"\basync\b"),
    "*": re.compile(r"\basync\b"),
}
ASYNC["typescript"] = ASYNC["tsx"] = ASYNC["javascript"]

RAISES: dict[str, re.Pattern[str]] = {
    "python": re.compile(r"^[ \t]*raise\b", M),
    "go": re.compile(r"\bpanic\(|\berrors\.New\(|\bfmt\.Errorf\("),
    "rust": re.compile(r"\bpanic!|\bErr\(|\?\s*;|\.unwrap\(\)|\.expect\("),
    "*": re.compile(r"\bthrow\b|\bthrows\b"),
}

SUBPROCESS = re.compile(
    r"\bsubprocess\.\w+|\bos\.(?:system|popen|exec\w*|spawn\w*)\(|\bchild_process\b|"
    r"(?<!\.)\bexec(?:Sync|File)?\(|\bspawn(?:Sync)?\(|\bexec\.Command\b|\bProcessBuilder\b|"
    r"\bRuntime\.getRuntime\(\)\.exec|\bstd::process::Command|\bProcess\.Start\b|\bPopen\("
)
"""A child process started, in any language: a reason a chunk sits on a security
boundary. (The side effects a chunk shows are rules per language: `effects.py`.)"""

SECURITY: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("authentication", re.compile(r"(?i)\b(?:login|logout|authenticat\w*|password|passwd|credential\w*|session_?token|jwt|oauth\w*|bearer)\b")),
    ("authorisation", re.compile(r"(?i)\b(?:authori[sz]\w*|\w*permission\w*|has_perms?|is_admin|is_staff|is_superuser|has_role|access_control|acl)\b")),
    ("cryptography", re.compile(r"(?i)\b(?:hashlib|hmac|crypto\w*|cipher\w*|encrypt\w*|decrypt\w*|bcrypt|sha256|signature_verify|secrets\.\w+)\b")),
    ("secrets", re.compile(r"(?i)\b(?:api_?key|secret_?key|private_?key|access_?token|client_secret)\b")),
    ("deserialisation", re.compile(r"\bpickle\.loads?\(|\byaml\.load\(|\bmarshal\.loads?\(|\bunserialize\(|\bObjectInputStream\b|\beval\(")),
    ("subprocess", SUBPROCESS),
    ("SQL", re.compile(r"(?i)\b(?:execute|executemany|raw)\(\s*f?['\"]\s*(?:select|insert|update|delete)\b|\bcursor\(")),
    ("file-system path from input", re.compile(
        r"\b(?:open|send_file|send_from_directory|FileResponse|os\.path\.join|Path|path\.(?:join|resolve)|"
        r"filepath\.Join|os\.Open|readFile(?:Sync)?|createReadStream|sendFile|new\s+File)\s*\("
        r"[^)\n]*(?:\brequest\.|\breq\.(?:params|query|body)|\bparams\[|\bsys\.argv|\bprocess\.argv|"
        r"\bFormValue\(|\br\.URL\b|\bgetParameter\(|\bupload\w*)"
    )),
    ("network entry point", re.compile(
        # app.get takes a route and a handler; with one argument it reads a setting (app.get('etag fn'))
        r"@(?:app|router|bp|blueprint)\.(?:route|get|post|put|delete|patch)\b|\bapp\.get\(\s*[^,()]+,|"
        r"\bapp\.(?:post|put|delete|patch|use)\(|\bhttp\.HandleFunc\b|@(?:Get|Post|Request)Mapping\b|\.listen\("
    )),
)
"""Why a chunk sits on a security boundary: the first matching reason is stated."""

SECURITY_GATES: dict[str, tuple[str, ...]] = {
    "authentication": ("login", "logout", "authenticat", "password", "passwd", "credential", "token", "jwt", "oauth", "bearer"),
    "authorisation": ("authori", "permission", "has_perm", "is_admin", "is_staff", "is_superuser", "has_role", "access_control", "acl"),
    "cryptography": ("hashlib", "hmac", "crypto", "cipher", "encrypt", "decrypt", "bcrypt", "sha256", "signature_verify", "secrets."),
    "secrets": ("key", "token", "client_secret"),
    "deserialisation": ("pickle.", "yaml.load", "marshal.", "unserialize", "objectinputstream", "eval("),
    "subprocess": ("subprocess", "os.", "child_process", "exec", "spawn", "processbuilder", "runtime.", "std::process", "process.start", "popen"),
    "SQL": ("execute", "raw(", "cursor("),
    "file-system path from input": ("request.", "req.", "params[", "argv", "formvalue(", "r.url", "getparameter(", "upload"),
    "network entry point": ("@app.", "@router.", "@bp.", "@blueprint.", "app.", "handlefunc", "mapping", ".listen("),
}
"""For each reason, lower-case text of which at least one piece stands in any match."""
SECURITY_READS_STRINGS = frozenset({"SQL"})
"""Reasons whose evidence stands inside string literals; the others ignore strings and
comments, so prose that mentions a password is not a boundary."""


LICENSE_HEADER = re.compile(
    r"\b(?:copyright|licen[cs]ed under|licen[cs]e|spdx-license-identifier|all rights reserved|permission is hereby granted)\b|©",
    re.IGNORECASE,
)
"""Licence boilerplate at the top of a file: never the file's description."""
