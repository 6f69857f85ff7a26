"""The standard libraries' names, per language, as data: a call of one of them on a
receiver of unknown type (or by a bare name nothing in the file explains) is taken to
be the library's, never linked to a repository definition that happens to share it.

Each set holds the methods of the language's built-in and most used standard types and
the functions and constructors its prelude puts in scope. A repository method of the
same name is still linked when the receiver's type is known (`self.len()` in an `impl`,
`c.String()` on a local declared `*Command`): only the unknown receiver is left out.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


GO = _words(
    # the error interface, fmt.Stringer, sort.Interface, io, bytes.Buffer, strings.Builder
    "Error String GoString Format Len Less Swap Read Write Close Seek ReadFrom WriteTo ReadByte "
    "WriteByte WriteRune WriteString ReadString ReadRune UnreadByte UnreadRune ReadBytes ReadLine "
    "Bytes Reset Grow Cap Truncate Next Flush Sync Fd Stat "
    # sync, context, time, reflect.Value, errors, testing
    "Lock Unlock RLock RUnlock TryLock Do Wait Add Done Load Store Swap CompareAndSwap Signal "
    "Broadcast Err Value Deadline Now Since Until Sub After Before Equal Unix UnixNano Seconds "
    "Milliseconds Kind Interface Elem Index Field NumField Type Int Uint Float Bool IsNil IsValid "
    "IsZero Set SetString SetInt SetBool Call Method NumMethod MapKeys MapIndex Addr CanSet CanAddr "
    "Unwrap Is As Fatal Fatalf Errorf Log Logf Helper Run Skip Skipf Cleanup TempDir Parallel "
    # built-in functions
    "append cap clear close complex copy delete imag len make max min new panic print println real recover"
)

RUST = _words(
    # prelude constructors and functions
    "Ok Err Some None Box Vec String drop panic "
    # Option, Result
    "unwrap unwrap_or unwrap_or_else unwrap_or_default expect is_some is_none is_ok is_err ok err "
    "map map_err and_then or_else ok_or ok_or_else as_ref as_mut as_deref take replace filter "
    "flatten zip unzip copied cloned "
    # str, String, slices, Vec, iterators
    "len is_empty push push_str pop insert remove clear truncate extend extend_from_slice split "
    "splitn rsplit lines chars bytes char_indices trim trim_start trim_end starts_with ends_with "
    "contains find rfind replace_range to_string to_owned to_lowercase to_uppercase as_str as_bytes "
    "as_slice as_mut_slice as_ptr as_mut_ptr get get_mut first last iter iter_mut into_iter next "
    "next_back rev enumerate skip step_by chain collect count sum fold any all position min max "
    "sort sort_by sort_by_key dedup retain join concat capacity with_capacity reserve "
    "from_utf8 from_utf8_unchecked from_raw_parts parse format write_str write_fmt write_char "
    # pointers, conversions, formatting, traits of core
    "add sub offset cast cast_mut cast_const read write is_null new_unchecked from_raw into_raw "
    "clone clone_from default from into try_from try_into eq ne cmp partial_cmp hash fmt deref "
    "deref_mut borrow borrow_mut source description provide type_id of size_of align_of "
    "alternate debug_struct debug_tuple debug_list finish field entry entries"
)

JAVA = _words(
    # Object, String, StringBuilder, Character, boxed numbers
    "equals hashCode toString getClass clone finalize notify notifyAll wait length charAt "
    "substring indexOf lastIndexOf startsWith endsWith contains isEmpty isBlank trim strip split "
    "replace replaceAll toLowerCase toUpperCase format valueOf compareTo compare matches chars "
    "append insert reverse setLength codePointAt appendCodePoint isJavaIdentifierStart "
    "isJavaIdentifierPart isISOControl isDigit isLetter isWhitespace intValue longValue "
    "booleanValue getBytes join repeat concat intern "
    # collections, streams, Optional, Objects, Arrays, Collections
    "add addAll remove removeAll removeIf retainAll get set put putAll putIfAbsent getOrDefault "
    "containsKey containsValue keySet values entrySet getKey getValue size clear iterator hasNext "
    "next forEach stream map filter collect toList sorted of copyOf asList emptyList emptySet "
    "emptyMap singletonList singleton singletonMap unmodifiableList unmodifiableSet "
    "unmodifiableMap sort fill toArray subList peek poll offer push pop isPresent orElse "
    "requireNonNull deepEquals hash "
    # reflection and annotation processing (javax.lang.model)
    "getName getSimpleName getQualifiedName getKind getModifiers getEnclosingElement "
    "getEnclosedElements getParameters getReturnType getThrownTypes getTypeParameters "
    "getAnnotation getAnnotationMirrors getElementValues getSuperclass getInterfaces "
    "getComponentType getBounds getUpperBounds getLowerBounds getRawType getActualTypeArguments "
    "getOwnerType getGenericComponentType getDeclaredMethods getDeclaringClass getEnclosingClass "
    "getPackage getTypeArguments getExtendsBound getSuperBound getUpperBound asType accept "
    "invoke isAnnotationPresent isPrimitive isArray"
)

CSHARP = _words(
    # object, string, exceptions
    "ToString Equals GetHashCode GetType ReferenceEquals Format Join Concat Contains StartsWith "
    "EndsWith IndexOf Substring Replace Split Trim ToLower ToUpper IsNullOrEmpty IsNullOrWhiteSpace "
    "CompareTo "
    # collections and LINQ
    "Add AddRange Remove RemoveAll RemoveAt Clear Insert TryGetValue ContainsKey GetOrAdd "
    "TryAdd ToList ToArray ToDictionary ToHashSet Where Select SelectMany First FirstOrDefault "
    "Single SingleOrDefault Last LastOrDefault Any All Count Sum Min Max OrderBy OrderByDescending "
    "ThenBy GroupBy Distinct Aggregate Concat Cast OfType Skip Take Reverse Zip Except Intersect "
    "Union Contains ForEach Exists Find FindAll Sort "
    # tasks, reflection, DI
    "ConfigureAwait Wait WhenAll WhenAny FromResult Run ContinueWith GetAwaiter GetResult "
    "GetInterfaces GetInterface GetGenericArguments GetGenericTypeDefinition MakeGenericType "
    "IsAssignableFrom GetMethod GetMethods GetProperty GetProperties GetCustomAttribute "
    "GetCustomAttributes CreateInstance Invoke DynamicInvoke GetTypes GetService GetServices "
    "GetRequiredService TryAddTransient TryAddScoped TryAddSingleton AddTransient AddScoped "
    "AddSingleton ThrowIfCancellationRequested Dispose DisposeAsync Capture Throw nameof"
)

C = _words(
    # libc
    "malloc calloc realloc free memcpy memmove memset memcmp strlen strcmp strncmp strcpy "
    "strncpy strcat strncat strchr strrchr strstr strtod strtol strtoul atoi atof sprintf "
    "snprintf printf fprintf vsnprintf sscanf fopen fclose fread fwrite fgets fputs fflush "
    "fseek ftell remove rename exit abort assert isdigit isspace isalpha isalnum tolower toupper "
    "qsort bsearch time clock"
)

CPP = C | _words(
    # the standard library's containers, strings, smart pointers, streams, atomics
    "size empty data begin end rbegin rend cbegin cend push_back emplace_back pop_back "
    "push_front pop_front front back insert emplace erase clear find count reserve resize "
    "capacity swap at substr c_str append compare length starts_with ends_with get reset "
    "release lock unlock try_lock load store fetch_add fetch_sub exchange compare_exchange_weak "
    "compare_exchange_strong notify_one notify_all wait move forward make_shared make_unique "
    "min max sort str"
)

BUILTIN_METHODS: dict[str, frozenset[str]] = {
    "go": GO,
    "rust": RUST,
    "java": JAVA,
    "csharp": CSHARP,
    "c": C,
    "cpp": CPP,
}
