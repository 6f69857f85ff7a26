"""The definitions and the public API of Go, Rust, Java, C# and C files, by each
language's rules: what a user of the package, crate or assembly can reach, and nothing
its own keyword alone would make public inside a private type, module or file."""

from __future__ import annotations

import hashlib
from pathlib import Path

from helpers import dedent, write_repo

from refdoc_site.core.config import ChunkSettings, Config
from refdoc_site.core.records import ChunkKind, SourceFile
from refdoc_site.indexing.analyze import SyntaxAnalyzer
from refdoc_site.indexing.chunk import chunk_file
from refdoc_site.languages.imports import RepoFiles, rules_for
from refdoc_site.pipeline import Workspace, index, summarize


def analysed(path: str, language: str, text: str):
    text = dedent(text)
    data = text.encode("utf-8")
    file = SourceFile(path, language, len(data), hashlib.sha256(data).hexdigest())
    chunks = chunk_file(file, text, ChunkSettings())
    return chunks, SyntaxAnalyzer().analyze(file, text, chunks)


def exported(path: str, language: str, text: str) -> list[str]:
    chunks, analysis = analysed(path, language, text)
    return [name for chunk in chunks for name in analysis.metadata[chunk.id].exports]


def definitions(path: str, language: str, text: str) -> list[tuple[str, str]]:
    chunks, _ = analysed(path, language, text)
    return [(c.kind.value, c.symbol) for c in chunks if c.kind is not ChunkKind.MODULE]


GO = '''
    package cobra

    // PositionalArgs validates the arguments.
    type PositionalArgs func(cmd *Command, args []string) error

    type ShellCompDirective int

    const (
        ShellCompDirectiveError ShellCompDirective = 1 << iota
        shellCompDirectiveHidden
    )

    var EnablePrefixMatching = false

    type (
        // Command is a command.
        Command struct{ Use string }
        flagCompError struct{ flag string }
    )

    func (e *flagCompError) Error() string { return e.flag }

    func (c *Command) Execute() error { return nil }
'''


def test_go_types_of_every_kind_are_definitions_one_per_spec():
    assert definitions("command.go", "go", GO) == [
        ("class", "PositionalArgs"),
        ("class", "ShellCompDirective"),
        ("class", "Command"),
        ("class", "flagCompError"),
        ("method", "flagCompError.Error"),
        ("method", "Command.Execute"),
    ]
    chunks, _ = analysed("command.go", "go", GO)
    command = next(c for c in chunks if c.symbol == "Command")
    assert command.start_line == 17 and command.docstring == "Command is a command."
    assert next(c for c in chunks if c.symbol == "PositionalArgs").signature == (
        "type PositionalArgs func(cmd *Command, args []string) error"
    )


def test_go_api_has_exported_consts_and_no_method_of_an_unexported_type():
    names = exported("command.go", "go", GO)
    assert "flagCompError.Error" not in names and "flagCompError" not in names
    assert {"PositionalArgs", "ShellCompDirective", "Command", "Command.Execute"} <= set(names)
    assert {"ShellCompDirectiveError", "EnablePrefixMatching"} <= set(names)
    assert "shellCompDirectiveHidden" not in names


RUST_LIB = '''
    //! An error library.

    mod chain;
    mod macros;

    pub use crate::kind::Wrapped as Wrapper;
    pub(crate) use crate::chain::Chain;

    pub struct Error {
        inner: u8,
    }

    /// `Result<T, Error>`
    pub type Result<T, E = Error> = core::result::Result<T, E>;

    pub trait Context<T> {
        /// Wrap the error value with additional context.
        fn context(self, context: &str) -> Result<T>;
    }

    impl Error {
        pub fn msg(message: &str) -> Self {
            Error { inner: 0 }
        }

        pub(crate) fn construct(inner: u8) -> Self {
            Error { inner }
        }
    }

    pub(crate) struct ErrorImpl;

    impl ErrorImpl {
        pub fn error(&self) -> u8 {
            0
        }
    }

    /// Return early with an error.
    #[macro_export]
    macro_rules! bail {
        ($msg:literal) => {
            return Err($msg)
        };
    }

    macro_rules! internal {
        () => {};
    }

    #[doc(hidden)]
    pub mod __private {
        pub fn must_use(error: u8) -> u8 {
            error
        }
    }

    mod ext {
        pub trait StdError {}
    }
'''


def test_rust_api_follows_pub_module_privacy_hidden_docs_and_macro_export():
    names = exported("src/lib.rs", "rust", RUST_LIB)
    assert {"Error", "Result", "Context", "Context.context", "Error.msg", "bail", "Wrapper"} <= set(names)
    for private in ("Error.construct", "ErrorImpl", "ErrorImpl.error", "internal", "__private.must_use",
                    "ext.StdError", "Chain"):
        assert private not in names, private


def test_rust_type_aliases_and_macros_are_definitions_and_impl_bodies_are_not_repeated():
    found = definitions("src/lib.rs", "rust", RUST_LIB)
    assert ("class", "Result") in found and ("function", "bail") in found
    assert ("function", "__private.must_use") in found  # named through its inline module
    chunks, _ = analysed("src/lib.rs", "rust", RUST_LIB)
    module = "\n".join(c.content for c in chunks if c.kind is ChunkKind.MODULE)
    assert "Error { inner: 0 }" not in module and "pub fn msg" not in module
    assert "impl Error {" in module  # the impl header no definition holds stays


def test_a_rust_trait_impls_methods_say_the_trait_they_implement():
    """anyhow's `Error.fmt` came twice, Display's and Debug's, with nothing to tell them apart."""
    chunks, _ = analysed("src/error.rs", "rust", """
        pub struct Error;
        impl fmt::Display for Error {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { Ok(()) }
        }
        impl<E> From<E> for Error {
            fn from(error: E) -> Self { Error }
        }
        impl Error {
            pub fn new() -> Self { Error }
        }
    """)
    signatures = {c.symbol: c.signature for c in chunks}
    assert signatures["Error.fmt"] == "impl fmt::Display for Error: fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result"
    assert signatures["Error.from"] == "impl From<E> for Error: fn from(error: E) -> Self"
    assert signatures["Error.new"] == "pub fn new() -> Self"


def test_a_rust_file_api_through_the_whole_pipeline(tmp_path: Path):
    repo = write_repo(tmp_path / "repo", {"Cargo.toml": '[package]\nname = "errs"\n', "src/lib.rs": RUST_LIB})
    workspace = Workspace.create(repo, Config(), tmp_path / "store", tmp_path / "site")
    index(workspace)
    api = summarize(workspace).files["src/lib.rs"].public_api
    assert api[:3] == ["Error", "Result", "Context"]
    assert {"bail", "Wrapper"} <= set(api) and "ErrorImpl" not in api and "internal" not in api


JAVA = '''
    package com.squareup.javapoet;

    final class CodeWriter {
      public CodeWriter emit(String s) { return this; }
    }

    public final class AnnotationSpec {
      public static Builder builder() { return null; }

      private static class Visitor {
        public void visitString(String s) {}
      }

      public interface Emitter {
        void emit(CodeWriter writer);
        private void helper() {}
      }
    }
'''


def test_java_members_of_non_public_types_are_not_api_and_interface_members_are():
    names = exported("src/AnnotationSpec.java", "java", JAVA)
    assert "CodeWriter" not in names and "CodeWriter.emit" not in names
    assert "AnnotationSpec.Visitor.visitString" not in names
    assert {"AnnotationSpec", "AnnotationSpec.builder", "AnnotationSpec.Emitter", "AnnotationSpec.Emitter.emit"} <= set(names)
    assert "AnnotationSpec.Emitter.helper" not in names


CSHARP = '''
    namespace MediatR;

    public interface ISender
    {
        /// <summary>Send a request.</summary>
        Task<TResponse> Send<TResponse>(IRequest<TResponse> request);

        bool IsReady { get; }
    }

    internal static class HandlersOrderer
    {
        public static IList<object> Prioritize(IList<object> handlers) => handlers;
    }

    public readonly struct Unit
    {
        public static bool operator ==(Unit first, Unit second) => true;

        public int Count { get; set; }

        private int Hidden { get; set; }

        public override string ToString() => "()";
    }
'''


def test_csharp_properties_operators_and_interface_members_are_definitions_and_api():
    found = definitions("src/ISender.cs", "csharp", CSHARP)
    for definition in (("method", "ISender.Send"), ("method", "ISender.IsReady"), ("method", "Unit.operator =="),
                       ("method", "Unit.Count")):
        assert definition in found, definition
    names = exported("src/ISender.cs", "csharp", CSHARP)
    assert {"ISender", "ISender.Send", "ISender.IsReady", "Unit", "Unit.operator ==", "Unit.Count"} <= set(names)
    assert "HandlersOrderer" not in names and "HandlersOrderer.Prioritize" not in names
    assert "Unit.Hidden" not in names


C_HEADER = '''
    #ifndef cJSON__h
    #define cJSON__h

    /* Iterate over the items of an array. */
    #define cJSON_ArrayForEach(element, array) for(element = (array != NULL) ? (array)->child : NULL; element != NULL; element = element->next)

    #define CJSON_VERSION_MAJOR 1

    typedef struct cJSON {
        struct cJSON *next;
    } cJSON;

    #endif
'''

C_SOURCE = '''
    #define can_read(buffer, size) ((buffer != NULL) && (((buffer)->offset + size) <= (buffer)->length))

    typedef struct {
        const unsigned char *content;
    } parse_buffer;

    static int parse_hex4(const unsigned char * const input) { return 0; }

    int cJSON_GetArraySize(const cJSON *array) { return can_read(array, 1); }
'''


def test_c_function_like_macros_are_definitions_api_only_in_a_header():
    assert ("function", "cJSON_ArrayForEach") in definitions("cJSON.h", "c", C_HEADER)
    header = exported("cJSON.h", "c", C_HEADER)
    assert {"cJSON_ArrayForEach", "cJSON"} <= set(header)
    assert ("function", "can_read") in definitions("cJSON.c", "c", C_SOURCE)
    source = exported("cJSON.c", "c", C_SOURCE)
    assert source == ["cJSON_GetArraySize"]  # the macro and the typedef are local to the .c file


CPP_SOURCE = """
    #include "db/db_impl.h"

    namespace leveldb {

    struct DBImpl::Writer {
      explicit Writer(port::Mutex* mu) : done(false), cv(mu) {}
      bool done;
    };

    struct DBImpl::CompactionState {
      Output* current_output() { return &outputs[outputs.size() - 1]; }
    };

    Options SanitizeOptions(const std::string& dbname) { return Options(); }

    static int ClipToRange(int value) { return value; }

    Status DBImpl::Write(const WriteOptions& options, WriteBatch* updates) {
      Writer w(&mutex_);
      return Status::OK();
    }

    }  // namespace leveldb
    """


def test_cpp_a_type_defined_in_a_source_file_nests_its_members_and_is_no_api():
    # before: `struct DBImpl::Writer {` was no class (its name is qualified), so its
    # constructor and `current_output` were free functions, exported from db_impl.cc
    assert {("class", "DBImpl.Writer"), ("method", "DBImpl.Writer.Writer"), ("class", "DBImpl.CompactionState"),
            ("method", "DBImpl.CompactionState.current_output")} <= set(definitions("db/db_impl.cc", "cpp", CPP_SOURCE))
    assert exported("db/db_impl.cc", "cpp", CPP_SOURCE) == ["SanitizeOptions", "DBImpl.Write"]


def test_go_effects_come_from_go_rules_tied_to_imports():
    text = '''
        package cobra

        import (
            "os"

            flag "github.com/spf13/pflag"
        )

        func (c *Command) ExecuteC() (cmd *Command, err error) {
            err = cmd.execute(os.Args)
            return cmd, err
        }

        func hasNoOptDefVal(name string, fs *flag.FlagSet) bool {
            flag := fs.Lookup(name)
            return flag != nil
        }

        func writeScript(path string) error {
            f, err := os.Create(path)
            return err
        }
    '''
    chunks, analysis = analysed("command.go", "go", text)
    effects = {c.symbol: analysis.metadata[c.id].effects for c in chunks}
    assert effects["Command.ExecuteC"] == [] and effects["hasNoOptDefVal"] == []
    assert effects["writeScript"] == ["file"]


MEDIATR_LIKE = {
    "src/MediatR.Contracts/IRequest.cs": """
        namespace MediatR;

        public interface IRequest<out TResponse> { }
    """,
    "src/MediatR.Contracts/Unit.cs": """
        namespace MediatR;

        public readonly struct Unit { }
    """,
    "src/MediatR/Mediator.cs": """
        namespace MediatR;

        public class Mediator
        {
            public Task<TResponse> Send<TResponse>(IRequest<TResponse> request) => null;
        }
    """,
    "src/MediatR/Pipeline/RequestPreProcessorBehavior.cs": """
        namespace MediatR.Pipeline;

        public class RequestPreProcessorBehavior
        {
            public Unit Handle() => default;
        }
    """,
    "test/MediatR.Tests/SendTests.cs": """
        using MediatR;

        namespace MediatR.Tests;

        public class SendTests
        {
            public void Should_send(Mediator mediator) { }
        }
    """,
}


def test_csharp_namespaces_and_using_make_the_module_map(tmp_path: Path):
    repo = write_repo(tmp_path / "repo", MEDIATR_LIKE)
    workspace = Workspace.create(repo, Config(), tmp_path / "store", tmp_path / "site")
    index(workspace)
    hierarchy = summarize(workspace)
    modules = {name: module for name, module in hierarchy.modules.items()}
    assert "src/MediatR.Contracts" in modules and "src/MediatR" in modules, sorted(modules)
    assert modules["src/MediatR"].depends_on == ["src/MediatR.Contracts"]
    assert modules["src/MediatR.Contracts"].depends_on == []  # it uses no type of src/MediatR
    assert "src/MediatR" in modules["test/MediatR.Tests"].depends_on


def test_rust_items_of_a_private_module_file_are_api_only_through_a_public_type(tmp_path: Path):
    files = {
        "Cargo.toml": '[package]\nname = "errs"\n',
        "src/lib.rs": """
            mod chain;
            mod error;
            mod macros;
            pub mod api;
            #[doc(hidden)]
            pub mod private;

            pub struct Error {
                inner: u8,
            }
        """,
        "src/chain.rs": """
            pub struct Chain;

            pub fn walk() {}
        """,
        "src/error.rs": """
            use crate::Error;

            impl Error {
                pub fn root_cause(&self) -> u8 {
                    self.inner
                }
            }
        """,
        "src/macros.rs": """
            #[macro_export]
            macro_rules! bail {
                ($msg:literal) => {
                    return Err($msg)
                };
            }
        """,
        "src/api.rs": "pub fn open() {}\n",
        "src/private.rs": "pub fn helper() {}\n",
        "src/api/inner.rs": "pub fn deep() {}\n",
    }
    files["src/api.rs"] = "pub mod inner;\n\npub fn open() {}\n"
    repo = write_repo(tmp_path / "repo", files)
    workspace = Workspace.create(repo, Config(), tmp_path / "store", tmp_path / "site")
    index(workspace)
    api = {path: summary.public_api for path, summary in summarize(workspace).files.items()}
    assert api["src/chain.rs"] == []
    assert api["src/private.rs"] == []
    assert api["src/error.rs"] == ["Error.root_cause"]
    assert api["src/macros.rs"] == ["bail"]
    assert api["src/api.rs"] == ["open"] and api["src/api/inner.rs"] == ["deep"]


def test_java_static_and_package_imports_name_the_repository_files():
    files = RepoFiles({
        "src/main/java/com/squareup/javapoet/Util.java": "java",
        "src/main/java/com/squareup/javapoet/TypeSpec.java": "java",
        "src/main/java/com/squareup/javapoet/model/Field.java": "java",
    })
    resolve = rules_for("java").resolve
    importer = "src/main/java/com/squareup/javapoet/TypeSpec.java"
    assert resolve(files, importer, "com.squareup.javapoet.Util.checkArgument") == ["src/main/java/com/squareup/javapoet/Util.java"]
    assert resolve(files, importer, "com.squareup.javapoet.model") == ["src/main/java/com/squareup/javapoet/model/Field.java"]
    assert resolve(files, importer, "java.util.List") == []
