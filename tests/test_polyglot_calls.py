"""Call resolution by each language's types and standard library (Go, Rust, Java, C#,
C, C++), on inline code: a library receiver never links to a repository method of the
same name, a declared type picks the method, a declaration is no call, and a C++ header
is read as C++."""

from __future__ import annotations

from helpers import dedent, source_file
from test_graph import graph_of

from refdoc_site.core.config import ChunkSettings
from refdoc_site.indexing.chunk import chunk_file
from refdoc_site.languages.c_family import first_branches, header_language


def callees(graph, chunk_id: str) -> list[str]:
    return sorted(graph.calls.get(chunk_id, []))


# --- Go ---------------------------------------------------------------------------------------

GO_COMMAND = """
    package cobra

    import (
        "bytes"
        "fmt"

        flag "github.com/spf13/pflag"
    )

    type Command struct {
        flagErrorBuf *bytes.Buffer
        flags        *flag.FlagSet
        parent       *Command
    }

    type flagCompError struct{ name string }

    func (e *flagCompError) Error() string { return e.name }

    type customString struct{}

    func (s *customString) String() string { return "" }

    func (c *Command) SetOutput(x int) {}

    func (c *Command) Name() string { return "" }

    func (c *Command) Usage() string {
        if err := c.run(); err != nil {
            return err.Error()
        }
        c.flags.SetOutput(nil)
        c.parent.Name()
        return fmt.Sprintf("%s", c.flagErrorBuf.String())
    }

    func (c *Command) run() error { return nil }
    """


def test_go_library_receivers_stay_unlinked_and_typed_fields_pick_the_method():
    graph = graph_of({"command.go": GO_COMMAND})
    # before: err.Error() → flagCompError.Error, the bytes.Buffer field's String() →
    # customString.String, c.flags.SetOutput (a *pflag.FlagSet) → Command.SetOutput
    assert callees(graph, "command.go#Command.Usage") == ["command.go#Command.Name", "command.go#Command.run"]


def test_go_a_parameter_typed_by_another_package_reaches_its_methods():
    graph = graph_of(
        {
            "go.mod": "module github.com/spf13/cobra\n",
            "command.go": GO_COMMAND,
            "doc/md.go": """
                package doc

                import (
                    "strings"

                    "github.com/spf13/cobra"
                )

                func Render(cmd *cobra.Command, buf *strings.Builder) string {
                    buf.String()
                    return cmd.Name()
                }
                """,
        },
        roots={"go": {"github.com/spf13/cobra": ""}},
    )
    assert callees(graph, "doc/md.go#Render") == ["command.go#Command.Name"]


# --- Rust -------------------------------------------------------------------------------------


def test_rust_prelude_and_str_calls_stay_unlinked_and_typed_fields_resolve_across_files():
    graph = graph_of(
        {
            "src/lib.rs": """
                mod chain;
                mod ptr;
                mod error;

                pub struct Error {
                    inner: Own<ErrorImpl>,
                }

                pub fn Ok<T>(value: T) -> Result<T> {
                    Result::Ok(value)
                }
                """,
            "src/chain.rs": """
                pub struct Chain {
                    n: usize,
                }

                impl Chain {
                    pub fn new(n: usize) -> Self {
                        Chain { n }
                    }

                    pub fn len(&self) -> usize {
                        self.n
                    }
                }
                """,
            "src/ptr.rs": """
                pub struct Own<T> {
                    ptr: T,
                }

                impl<T> Own<T> {
                    pub fn by_ref(&self) -> &T {
                        &self.ptr
                    }
                }
                """,
            "src/error.rs": """
                use crate::chain::Chain;
                use crate::ptr::Own;

                impl Error {
                    pub fn chain(&self) -> Chain {
                        Chain::new(self.inner.by_ref().len())
                    }

                    fn render(&self, s: &str) -> Result<(), ()> {
                        let n = s.len();
                        Self::check(n);
                        Ok(())
                    }

                    fn check(n: usize) {}
                }
                """,
        }
    )
    # before: `Chain::new` was dropped as a keyword, `self.inner.by_ref()` unresolved (a
    # generic field declared in another file), `s.len()` → Chain.len, `Ok(())` → lib.rs#Ok
    assert callees(graph, "src/error.rs#Error.chain") == ["src/chain.rs#Chain.new", "src/ptr.rs#Own.by_ref"]
    assert callees(graph, "src/error.rs#Error.render") == ["src/error.rs#Error.check"]


# --- Java -------------------------------------------------------------------------------------

JAVA_UTIL = """
    package com.example;

    final class Util {
      static void checkArgument(boolean condition, String format, Object... args) {}
    }
    """

JAVA_WRITER = """
    package com.example;

    import java.util.Set;

    final class CodeWriter {
      private final Set<String> names;

      public CodeWriter emit(String s) { return this; }

      public CodeWriter emit(String format, Object... args) { return this; }

      public CodeWriter emit(CodeBlock block, boolean trailing) { return this; }

      boolean known(String name) {
        return names.contains(name);
      }

      private static final class Multiset<T> {
        boolean contains(T t) { return false; }
      }
    }
    """


def test_java_static_imports_overloads_typed_parameters_and_library_collections():
    graph = graph_of(
        {
            "src/com/example/Util.java": JAVA_UTIL,
            "src/com/example/CodeWriter.java": JAVA_WRITER,
            "src/com/example/CodeBlock.java": """
                package com.example;

                import static com.example.Util.checkArgument;

                final class CodeBlock {
                  void emit(CodeWriter codeWriter, String name) {
                    checkArgument(name != null, "name == null");
                    codeWriter.emit("$L", name);
                  }

                  void emitBlock(CodeWriter codeWriter) {
                    codeWriter.emit(this, true);
                  }
                }
                """,
        }
    )
    writer = "src/com/example/CodeWriter.java#CodeWriter"
    # before: the static import, the same-package parameter type and the overload were unknown
    assert callees(graph, "src/com/example/CodeBlock.java#CodeBlock.emit") == [
        f"{writer}.emit@10",
        "src/com/example/Util.java#Util.checkArgument",
    ]
    assert callees(graph, "src/com/example/CodeBlock.java#CodeBlock.emitBlock") == [f"{writer}.emit@12"]
    # a Set<String> field's contains is the JDK's, not the private Multiset's
    assert callees(graph, f"{writer}.known") == []


def test_java_a_method_of_a_call_result_is_not_one_of_this_class():
    graph = graph_of(
        {
            "src/a/AnnotationSpec.java": """
                package a;

                public final class AnnotationSpec {
                  public static Builder builder(String name) { return null; }

                  public static final class Builder {
                    public AnnotationSpec build() { return null; }
                  }
                }
                """,
            "src/a/ParameterSpec.java": """
                package a;

                public final class ParameterSpec {
                  public static final class Builder {
                    public Builder addAnnotation(String annotation) {
                      list.add(AnnotationSpec.builder(annotation).build());
                      return this;
                    }

                    public ParameterSpec build() { return null; }
                  }
                }
                """,
        }
    )
    # before: `….build()` on the result was read as `this.build()`: ParameterSpec.Builder.build;
    # now it is a method of an unknown receiver, and two classes have a `build`
    assert callees(graph, "src/a/ParameterSpec.java#ParameterSpec.Builder.addAnnotation") == [
        "src/a/AnnotationSpec.java#AnnotationSpec.builder"
    ]


# --- C# ---------------------------------------------------------------------------------------


def test_csharp_object_methods_stay_unlinked_and_var_and_extensions_resolve():
    graph = graph_of(
        {
            "src/Unit.cs": """
                namespace MediatR;

                public readonly struct Unit
                {
                    public override string ToString() => "()";
                }
                """,
            "src/Registrar.cs": """
                namespace MediatR.Registration;

                public static class Registrar
                {
                    internal static bool IsOpenGeneric(this Type type) => type.IsGenericTypeDefinition;

                    public static void Scan(Type type, Exception e)
                    {
                        var config = new Configuration();
                        config.Add(type);
                        if (type.IsOpenGeneric()) { Log(e.ToString()); }
                    }

                    static void Log(string text) { }
                }

                public class Configuration
                {
                    public void Add(Type type) { }
                }
                """,
        }
    )
    # before: e.ToString() → Unit.ToString; `var config = new Configuration()` untyped
    assert callees(graph, "src/Registrar.cs#Registrar.Scan") == [
        "src/Registrar.cs#Configuration",
        "src/Registrar.cs#Configuration.Add",
        "src/Registrar.cs#Registrar.IsOpenGeneric",
        "src/Registrar.cs#Registrar.Log",
    ]


# --- C and C++ --------------------------------------------------------------------------------

C_HEADER = """
    #ifndef cJSON__h
    #define cJSON__h

    #ifdef __cplusplus
    extern "C"
    {
    #endif

    #define CJSON_PUBLIC(type) type
    typedef struct cJSON { struct cJSON *next; } cJSON;
    CJSON_PUBLIC(cJSON *) cJSON_Parse(const char *value);
    CJSON_PUBLIC(void) cJSON_Delete(cJSON *item);
    #define cJSON_SetNumberValue(object, number) cJSON_SetNumberHelper(object, (double)number)

    #ifdef __cplusplus
    }
    #endif
    #endif
    """


def test_c_prototypes_and_macros_are_no_calls():
    graph = graph_of(
        {
            "cJSON.h": C_HEADER,
            "cJSON.c": """
                #include "cJSON.h"

                static cJSON *parse_value(const char *text);

                double cJSON_SetNumberHelper(cJSON *object, double number) { return number; }

                void cJSON_Delete(cJSON *item) { }

                cJSON *cJSON_Parse(const char *value) { return parse_value(value); }

                static cJSON *parse_value(const char *text) { return 0; }
                """,
        }
    )
    callers = {target: sorted(found) for target, found in graph.callers.items()}
    # before: the header's module chunk "called" every prototype and macro body, and the
    # forward declaration in cJSON.c "called" parse_value
    assert callers.get("cJSON.c#cJSON_Parse") is None
    assert callers.get("cJSON.c#cJSON_SetNumberHelper") is None
    assert callers["cJSON.c#parse_value"] == ["cJSON.c#cJSON_Parse"]


def test_a_header_with_cpp_constructs_is_cpp_and_a_c_header_stays_c():
    assert header_language(C_HEADER) is None
    assert header_language("namespace leveldb {\nclass LEVELDB_EXPORT DB {\n public:\n};\n}\n") == "cpp"


def test_cpp_headers_among_cpp_sources_give_classes_and_out_of_line_methods_link():
    graph = graph_of(
        {
            "include/db.h": """
                #ifndef DB_H_
                #define DB_H_
                namespace leveldb {
                class LEVELDB_EXPORT Status {
                 public:
                  bool ok() const { return code_ == 0; }
                  int code_;
                };

                class LEVELDB_EXPORT DB {
                 public:
                  virtual ~DB();
                  Status Delete(int key);
                  void RemoveObsoleteFiles() LOCKS_EXCLUDED(mutex_);
                };
                }
                #endif
                """,
            "db/db_impl.cc": """
                #include "include/db.h"

                namespace leveldb {
                Status DB::Delete(int key) {
                  Status s;
                  RemoveObsoleteFiles();
                  s.ok();
                  return s;
                }

                void DB::RemoveObsoleteFiles() {}
                }
                """,
        }
    )
    # before: the header was C, `DB` and `Status` had no class chunk, and the header
    # "function" RemoveObsoleteFiles took the calls meant for the definition
    assert callees(graph, "db/db_impl.cc#DB.Delete") == ["db/db_impl.cc#DB.RemoveObsoleteFiles", "include/db.h#Status.ok"]


LIMITER = """
    namespace leveldb {

    class Limiter {
     public:
      Limiter(int max_acquires)
          :
    #if !defined(NDEBUG)
            max_acquires_(max_acquires),
    #endif  // !defined(NDEBUG)
            acquires_allowed_(max_acquires) {
        assert(max_acquires >= 0);
      }

      bool Acquire() { return true; }

     private:
    #if !defined(NDEBUG)
      const int max_acquires_;
    #endif  // !defined(NDEBUG)
      std::atomic<int> acquires_allowed_;
    };

    class PosixEnv {
     public:
      void Sleep() {}
    };

    }  // namespace leveldb
    """


def test_a_conditional_inside_an_initializer_list_keeps_the_constructor_and_the_nesting():
    text = dedent(LIMITER)
    assert "#if" not in first_branches(text) and len(first_branches(text)) == len(text)
    chunks = chunk_file(source_file("util/env_posix.cc", "cpp", text), text, ChunkSettings())
    # before: the `#if` in the initializer list was an error and the constructor no chunk
    # (in leveldb's whole file, `class Limiter` then spanned every class after it)
    assert {"Limiter", "Limiter.Limiter", "Limiter.Acquire", "PosixEnv", "PosixEnv.Sleep"} <= {c.symbol for c in chunks}


def test_c_a_function_like_macro_is_a_definition_but_no_call_target():
    """cJSON's `buffer_at_offset(b)` is expanded where it stands: clangd lists no call of it,
    and 26 of cJSON's 169 links went to such macros (precision 0.84 → 0.99 without them)."""
    graph = graph_of({"cJSON.c": """
        #define buffer_at_offset(buffer) ((buffer)->content + (buffer)->offset)
        static int skip(int b) { return b + 1; }
        static int parse(int b) { return skip(buffer_at_offset(b)); }
    """})
    assert callees(graph, "cJSON.c#parse") == ["cJSON.c#skip"]
