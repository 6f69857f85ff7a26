"""The side effects a chunk's code shows, as rules per language.

Each rule names the effect, the languages whose code it reads, the pattern, the pieces of
text at least one of which stands in anything the pattern matches (a cheap test that
spares most chunks the expression) and, when the pattern names a library, the imports of
that library one of which the file must have: `fs.readFile` is Node's file system only in
a file that imports `fs` (a Go `*pflag.FlagSet` named `fs` reads no file), and
`db.Query(` is a database only beside `database/sql`. A method name alone is never a
rule (`cmd.execute(flags)` is cobra's own method, not SQL).

The analysis (`indexing/analyze.py`) runs them on a chunk's code with its strings and
comments emptied; `effects_in` is the whole use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ECMASCRIPT = ("javascript", "typescript", "tsx")
C_FAMILY = ("c", "cpp")


@dataclass(frozen=True)
class EffectRule:
    effect: str
    """`file`, `network`, `database`, `subprocess` or `global state`."""
    languages: tuple[str, ...]
    pattern: re.Pattern[str]
    gate: tuple[str, ...]
    imports: tuple[str, ...] = ()
    """Imports (a module, package, crate path or header as the file writes it, or one of
    their parents) one of which the file must have; empty for the language's own
    built-ins (Python's `open`, C's `fopen`)."""


def _rule(effect: str, languages: tuple[str, ...] | str, pattern: str, gate: tuple[str, ...], imports: tuple[str, ...] = (), flags: int = 0) -> EffectRule:
    languages = (languages,) if isinstance(languages, str) else languages
    return EffectRule(effect, languages, re.compile(pattern, flags), gate, imports)


PYTHON_DATABASES = ("sqlite3", "psycopg", "psycopg2", "pymysql", "MySQLdb", "sqlalchemy", "asyncpg", "aiosqlite", "peewee", "pymongo", "django.db")
NODE_DATABASES = ("pg", "mysql", "mysql2", "sqlite3", "better-sqlite3", "mongodb", "mongoose", "knex", "sequelize", "@prisma/client", "typeorm", "redis", "ioredis")
GO_DATABASES = ("database/sql", "github.com/jmoiron/sqlx", "gorm.io/gorm", "github.com/jackc/pgx", "go.mongodb.org/mongo-driver")

EFFECT_RULES: tuple[EffectRule, ...] = (
    # --- Python
    _rule("file", "python", r"\bopen\(|\.(?:write_text|write_bytes|read_text|read_bytes|unlink|mkdir|rmdir)\(", ("open(", "write_", "read_", "unlink", "mkdir", "rmdir")),
    _rule("file", "python", r"\bshutil\.\w+", ("shutil.",), ("shutil",)),
    _rule("file", "python", r"\bos\.(?:remove|rename|replace|makedirs|mkdir|unlink|rmdir|walk|listdir|scandir)\b", ("os.",), ("os",)),
    _rule("network", "python", r"\brequests\.\w+", ("requests.",), ("requests",)),
    _rule("network", "python", r"\bhttpx\.\w+", ("httpx.",), ("httpx",)),
    _rule("network", "python", r"\baiohttp\.\w+", ("aiohttp.",), ("aiohttp",)),
    _rule("network", "python", r"\burllib\.\w+|\burlopen\(", ("urllib", "urlopen("), ("urllib",)),
    _rule("network", "python", r"\bsocket\.\w+|\bsocket\(", ("socket",), ("socket",)),
    _rule("network", "python", r"\bhttp\.client\.\w+|\bHTTPS?Connection\(", ("http.client", "Connection("), ("http.client",)),
    _rule("database", "python", r"\.(?:cursor|execute|executemany|commit|rollback)\(|\bsession\.(?:add|query|commit)\b", ("cursor(", "execute", "commit(", "rollback(", "session."), PYTHON_DATABASES),
    _rule("database", "python", r"\.objects\.\w+\(", (".objects.",), ("django",)),
    _rule("subprocess", "python", r"\bsubprocess\.\w+|\bPopen\(", ("subprocess.", "Popen("), ("subprocess",)),
    _rule("subprocess", "python", r"\bos\.(?:system|popen|exec\w*|spawn\w*)\(", ("os.",), ("os",)),
    _rule("global state", "python", r"^[ \t]*global\s+\w+|\bos\.environ\[[^\]]+\]\s*=|\bsys\.\w+\s*=", ("global", "os.environ", "sys."), flags=re.MULTILINE),
    # --- JavaScript and TypeScript
    _rule("file", ECMASCRIPT, r"\bfs\.\w+|\b(?:readFile|writeFile|appendFile|unlink|mkdir|rmdir|createReadStream|createWriteStream)(?:Sync)?\(", ("fs.", "File", "unlink", "mkdir", "rmdir", "Stream("), ("fs", "node:fs", "fs/promises", "node:fs/promises", "fs-extra", "graceful-fs")),
    _rule("network", ECMASCRIPT, r"\bfetch\(|\bXMLHttpRequest\b|\bnew\s+WebSocket\b", ("fetch(", "XMLHttpRequest", "WebSocket")),
    _rule("network", ECMASCRIPT, r"\baxios\b", ("axios",), ("axios",)),
    _rule("network", ECMASCRIPT, r"\bhttps?\.(?:request|get|createServer)\(|\.listen\(", ("http", ".listen("), ("http", "https", "node:http", "node:https", "net", "node:net", "express", "koa", "fastify")),
    _rule("database", ECMASCRIPT, r"\.(?:query|execute|findOne|findMany|insertOne|insertMany|updateOne|deleteOne)\(", ("query(", "execute(", "find", "insert", "update", "delete"), NODE_DATABASES),
    _rule("subprocess", ECMASCRIPT, r"\b(?:exec|execSync|execFile|execFileSync|spawn|spawnSync|fork)\(", ("exec", "spawn", "fork("), ("child_process", "node:child_process", "execa", "cross-spawn")),
    _rule("global state", ECMASCRIPT, r"\bglobalThis\.\w+\s*=|\bwindow\.\w+\s*=|\bprocess\.env\.\w+\s*=", ("globalThis.", "window.", "process.env")),
    # --- Go
    _rule("file", "go", r"\bos\.(?:Open|OpenFile|Create|ReadFile|WriteFile|Remove|RemoveAll|Mkdir|MkdirAll|Rename|ReadDir)\(", ("os.",), ("os",)),
    _rule("file", "go", r"\bioutil\.(?:ReadFile|WriteFile|ReadDir|TempFile|TempDir)\(", ("ioutil.",), ("io/ioutil",)),
    _rule("file", "go", r"\bfilepath\.Walk(?:Dir)?\(", ("filepath.Walk",), ("path/filepath",)),
    _rule("network", "go", r"\bhttp\.(?:Get|Post|PostForm|Head|NewRequest|NewRequestWithContext|ListenAndServe|ListenAndServeTLS)\(|\bhttp\.Client\b", ("http.",), ("net/http",)),
    _rule("network", "go", r"\bnet\.(?:Dial|DialTimeout|Listen|ListenPacket)\(", ("net.",), ("net",)),
    _rule("database", "go", r"\.(?:Query|QueryRow|QueryContext|QueryRowContext|Exec|ExecContext|Prepare|PrepareContext|Begin|BeginTx)\(", ("Query", "Exec", "Prepare", "Begin"), GO_DATABASES),
    _rule("subprocess", "go", r"\bexec\.Command(?:Context)?\(", ("exec.Command",), ("os/exec",)),
    _rule("global state", "go", r"\bos\.(?:Setenv|Unsetenv|Chdir)\(", ("os.",), ("os",)),
    # --- Rust
    _rule("file", "rust", r"\bstd::fs::\w+|\bfs::(?:read|read_to_string|write|create_dir\w*|remove_\w+|rename|copy|read_dir|File)\b|\bFile::(?:open|create)\(|\bOpenOptions::new\(", ("fs::", "File::", "OpenOptions"), ("std", "std::fs", "tokio::fs", "async_std::fs")),
    _rule("network", "rust", r"\b(?:TcpStream|TcpListener|UdpSocket)::(?:connect|bind)\(", ("TcpStream", "TcpListener", "UdpSocket"), ("std", "std::net", "tokio::net", "async_std::net")),
    _rule("network", "rust", r"\breqwest::\w+|\bClient::new\(", ("reqwest", "Client::new("), ("reqwest", "hyper", "ureq", "surf")),
    _rule("database", "rust", r"\.(?:execute|query|query_row|prepare|fetch_one|fetch_all)\(|\bsqlx::query\w*", ("execute(", "query", "prepare(", "fetch_"), ("rusqlite", "sqlx", "diesel", "postgres", "tokio_postgres", "mysql")),
    _rule("subprocess", "rust", r"\b(?:std::process::)?Command::new\(", ("Command::new(",), ("std", "std::process", "tokio::process")),
    _rule("global state", "rust", r"\bstatic\s+mut\b|\b(?:std::)?env::set_var\(", ("static", "set_var(")),
    # --- Java
    _rule("file", "java", r"\bnew\s+(?:File(?:Input|Output)Stream|FileReader|FileWriter|RandomAccessFile|PrintWriter\(\s*new\s+File)\b|\bFiles\.(?:read\w*|write\w*|new\w+|create\w*|delete\w*|copy|move|list|walk|lines)\(", ("File", "Files."), ("java.io", "java.nio.file", "java.nio")),
    _rule("network", "java", r"\bnew\s+(?:Socket|ServerSocket|URL)\(|\bHttpClient\b|\bHttpURLConnection\b|\.openConnection\(", ("Socket", "URL(", "HttpClient", "HttpURLConnection", "openConnection"), ("java.net", "java.net.http", "okhttp3", "org.apache.http")),
    _rule("database", "java", r"\.(?:executeQuery|executeUpdate|prepareStatement|createStatement|persist|merge|createQuery)\(|\bDriverManager\.getConnection\(", ("execute", "Statement(", "persist(", "merge(", "createQuery(", "DriverManager"), ("java.sql", "javax.sql", "javax.persistence", "jakarta.persistence", "org.hibernate", "org.springframework.jdbc")),
    _rule("subprocess", "java", r"\bnew\s+ProcessBuilder\b|\bRuntime\.getRuntime\(\)\.exec\(", ("ProcessBuilder", "Runtime.")),
    _rule("global state", "java", r"\bSystem\.(?:setProperty|setOut|setErr|setIn)\(", ("System.set",)),
    # --- C#
    _rule("file", "csharp", r"\b(?:File|Directory)\.(?:Read\w*|Write\w*|Open\w*|Create\w*|Delete|Append\w*|Copy|Move|Enumerate\w*|GetFiles|GetDirectories)\(|\bnew\s+(?:FileStream|StreamReader|StreamWriter)\(", ("File", "Directory.", "Stream")),
    _rule("network", "csharp", r"\bnew\s+(?:HttpClient|WebClient|TcpClient|TcpListener|Socket)\(|\bHttpClient\.\w+Async\(", ("HttpClient", "WebClient", "Tcp", "Socket(")),
    _rule("database", "csharp", r"\.(?:ExecuteReader|ExecuteNonQuery|ExecuteScalar|SaveChanges|SaveChangesAsync|ExecuteSqlRaw|QueryAsync|ExecuteAsync)\(|\bnew\s+Sql(?:Connection|Command)\(", ("Execute", "SaveChanges", "QueryAsync", "Sql"), ("System.Data", "Microsoft.Data", "Microsoft.EntityFrameworkCore", "Dapper", "Npgsql", "MySql")),
    _rule("subprocess", "csharp", r"\bProcess\.Start\(|\bnew\s+ProcessStartInfo\b", ("Process",)),
    _rule("global state", "csharp", r"\bEnvironment\.SetEnvironmentVariable\(", ("Environment.",)),
    # --- C and C++
    _rule("file", C_FAMILY, r"\b(?:fopen|freopen|fwrite|fread|fputs|fgets|fprintf|remove|rename|unlink|mkdir|opendir)\(|\bstd::[io]?fstream\b", ("fopen", "freopen", "fwrite", "fread", "fputs", "fgets", "fprintf", "remove(", "rename(", "unlink(", "mkdir(", "opendir(", "fstream")),
    _rule("network", C_FAMILY, r"\b(?:socket|connect|bind|listen|accept|getaddrinfo)\(", ("socket(", "connect(", "bind(", "listen(", "accept(", "getaddrinfo("), ("sys/socket.h", "netdb.h", "winsock2.h", "netinet/in.h", "arpa/inet.h")),
    _rule("network", C_FAMILY, r"\bcurl_easy_\w+\(", ("curl_easy_",), ("curl/curl.h",)),
    _rule("database", C_FAMILY, r"\bsqlite3_(?:exec|prepare\w*|step|open\w*)\(", ("sqlite3_",), ("sqlite3.h",)),
    _rule("subprocess", C_FAMILY, r"\b(?:system|popen|fork|execv|execvp|execve|execl|execlp|posix_spawn)\(", ("system(", "popen(", "fork(", "exec", "posix_spawn(")),
    _rule("global state", C_FAMILY, r"\b(?:setenv|putenv|unsetenv)\(", ("setenv(", "putenv(", "unsetenv(")),
    # --- languages read by the regular expressions only
    _rule("file", "ruby", r"\b(?:File|IO|Dir|FileUtils)\.(?:open|read|write|readlines|foreach|delete|unlink|mkdir|rm\w*|cp|mv|glob)\b", ("File.", "IO.", "Dir.", "FileUtils.")),
    _rule("network", "ruby", r"\bNet::HTTP\b|\bTCPSocket\.new\b|\bURI\.open\b", ("Net::HTTP", "TCPSocket", "URI.open")),
    _rule("subprocess", "ruby", r"\b(?:system|spawn|exec)\(|\bOpen3\.\w+|%x\{", ("system(", "spawn(", "exec(", "Open3.", "%x{")),
    _rule("file", "php", r"\b(?:fopen|file_get_contents|file_put_contents|unlink|mkdir|rmdir|rename|copy|scandir)\(", ("fopen(", "file_", "unlink(", "mkdir(", "rmdir(", "rename(", "copy(", "scandir(")),
    _rule("network", "php", r"\bcurl_(?:exec|init)\(|\bfsockopen\(", ("curl_", "fsockopen(")),
    _rule("database", "php", r"\bnew\s+(?:PDO|mysqli)\b|\bmysqli_query\(", ("PDO", "mysqli")),
    _rule("subprocess", "php", r"\b(?:exec|shell_exec|system|passthru|proc_open|popen)\(", ("exec(", "system(", "passthru(", "proc_open(", "popen(")),
    _rule("file", ("kotlin", "scala"), r"\bFile\([^)\n]*\)\.(?:readText|writeText|readLines|readBytes|writeBytes|delete|mkdirs?)\b|\bFiles\.(?:read\w*|write\w*|delete\w*|create\w*)\(|\bSource\.fromFile\(", ("File(", "Files.", "Source.fromFile(")),
    _rule("subprocess", ("kotlin", "scala"), r"\bProcessBuilder\(|\bRuntime\.getRuntime\(\)\.exec\(|\bsys\.process\b", ("ProcessBuilder(", "Runtime.", "sys.process")),
    _rule("file", "swift", r"\bFileManager\.default\.\w+|\bFileHandle\(", ("FileManager", "FileHandle(")),
    _rule("network", "swift", r"\bURLSession\.\w+", ("URLSession.",)),
    _rule("file", "lua", r"\bio\.(?:open|lines|write|read)\(|\bos\.(?:remove|rename)\(", ("io.", "os.")),
    _rule("subprocess", "lua", r"\bos\.execute\(|\bio\.popen\(", ("os.execute(", "io.popen(")),
)
"""Every effect rule; a language without rules shows no effects but `raising`."""

_BY_LANGUAGE: dict[str, tuple[EffectRule, ...]] = {}
for _rule_row in EFFECT_RULES:
    for _language in _rule_row.languages:
        _BY_LANGUAGE[_language] = (*_BY_LANGUAGE.get(_language, ()), _rule_row)


def imports_library(imports: list[str], libraries: tuple[str, ...]) -> bool:
    """Whether one of a file's imports is one of `libraries` or inside one (`os.path` is
    inside `os`, `std::fs::File` inside `std::fs`, `fs/promises` inside `fs`)."""
    for written in imports:
        for library in libraries:
            if written == library or (written.startswith(library) and written[len(library) : len(library) + 1] in ("/", ".", ":")):
                return True
    return False


def effects_in(code: str, language: str, imports: list[str]) -> list[str]:
    """The effects of `code` (strings and comments emptied) in a file of `language` with
    `imports`, each once, in the order of `EFFECT_RULES`."""
    found: list[str] = []
    for rule in _BY_LANGUAGE.get(language, ()):
        if rule.effect in found or not any(piece in code for piece in rule.gate):
            continue
        if rule.imports and not imports_library(imports, rule.imports):
            continue
        if rule.pattern.search(code):
            found.append(rule.effect)
    order = {effect: index for index, effect in enumerate(dict.fromkeys(rule.effect for rule in EFFECT_RULES))}
    return sorted(found, key=order.__getitem__)
