"""One backend per language: its printer, the templates that make its files, and how it shows
text from a robot file (a file name, a ``source`` line) so that the text stays text."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Callable

from .printers import CasadiPrinter, CPrinter, FloatCPrinter, JaxPrinter, PythonPrinter


def _one_ascii_line(text: str) -> str:
    """Whitespace runs (newlines, Unicode separators) as one space; anything else that is not
    printable ASCII as a backslash escape, so nothing can end a line or hide in one."""
    text = " ".join(text.split())
    return "".join(ch if " " <= ch <= "~" else ch.encode("ascii", "backslashreplace").decode()
                   if ord(ch) > 127 else f"\\x{ord(ch):02x}" for ch in text)


def c_comment_text(text: str) -> str:
    """``text`` inside a C comment: it can neither close the comment nor open one (-Wcomment),
    nor form a trigraph (which -std=c99 reads)."""
    text = _one_ascii_line(text)
    return text.replace("*/", "*\\/").replace("/*", "/\\*").replace("??", "?\\?")


def python_docstring_text(text: str) -> str:
    """``text`` inside a (non-raw) triple-quoted Python string: backslashes and quotes escaped,
    so it can neither end the string nor make an invalid escape such as ``\\N``."""
    return _one_ascii_line(text).replace("\\", "\\\\").replace('"', '\\"')


def c_string(text: str) -> str:
    """``text`` as a C string literal of its UTF-8 bytes: quotes and backslashes escaped, ? as
    \\? (no trigraph), every byte outside printable ASCII in octal."""
    out = []
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        out.append("\\" + ch if ch in '"\\?' else ch if " " <= ch <= "~" else f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def python_string(text: str) -> str:
    """``text`` as a Python string literal in ASCII: JSON's escapes are Python's."""
    return json.dumps(text)


# Words the C++ interface's namespace, symdyn::<robot>, cannot be named: the language's keywords
# and alternative tokens, and the lowercase macros a translation unit has, GNU mode's predefined
# ones (CMake's cxx_std_17 builds as gnu++17, where linux is 1) and the standard headers' (errno
# expands to a call); and std, which a consumer's `using namespace symdyn;` would make
# ambiguous. Any other name is free: the namespace is not at global scope (a robot named sinf,
# y0 or time_t meets no declaration of the C library), and the header writes the names it
# takes from outside in full (::std, ::Eigen).
CPP_RESERVED = frozenset("""alignas alignof and and_eq asm atomic_cancel atomic_commit
    atomic_noexcept auto bitand bitor bool break case catch char char8_t char16_t char32_t class
    compl concept const consteval constexpr constinit const_cast continue co_await co_return
    co_yield decltype default delete do double dynamic_cast else enum explicit export extern
    false float for friend goto if import inline int long module mutable namespace new noexcept
    not not_eq nullptr operator or or_eq private protected public reflexpr register
    reinterpret_cast requires return short signed sizeof static static_assert static_cast
    struct switch synchronized template this thread_local throw true try typedef typeid
    typename union unsigned using virtual void volatile wchar_t while xor xor_eq
    linux unix i386 mips sparc vax errno math_errhandling std""".split())


def cpp_name_problem(name: str) -> str | None:
    """Why the C++ interface cannot take ``name`` for its namespace, or None."""
    if name in CPP_RESERVED:
        return (f"the robot's name {name!r} is a word of C++ or a macro of its compilers, and "
                "it names the C++ interface's namespace (symdyn::<robot>): give the robot "
                "another name (name: in its file, or import --name)")
    return None


# numpy's loops over a solve's columns compute every entry of every column, where the solves
# written out skip each column's zeros, which a tree's columns have many of: Solo-12's FD
# derivatives took 1.19 ms a state written out and 1.31 in the loop, a batch of 1000 32.9 and
# 42.6 ms. Written out, a long chain's solves are its FD derivatives' 2 n^3 products (a 64-joint
# chain's: a million operations, 13 MB of Python): from this many operations on, the loop.
NUMPY_LOOP_OPERATIONS = 250_000


@dataclass(frozen=True)
class Backend:
    lang: str
    printer: type
    files: tuple[tuple[str, str], ...]   # (template, output file name with {name})
    text: Callable[[str], str]           # robot-file text made inert in a comment
    string: Callable[[str], str]         # robot-file text as a string literal (a joint's name)
    infinity: str                        # how the language writes an unlimited joint limit
    # C's layout: each output entry stored where it is ready (Body.ready), a long function
    # written as parts (Function.parts); the other languages assemble their outputs at the end
    c_layout: bool = False
    # a program's solves (program.Solve) written as loops over their columns, which the
    # compiler vectorizes (numpy: the kernel's steps once, on arrays of the columns), where
    # they take at least this many operations (passes.solve_operations); else unrolled
    # (solves.unrolled), as CasADi and JAX, whose compilers trace them, always print them
    loop_operations: float = math.inf
    # compiled by XLA: outputs assembled and values kept as it compiles them well (context.py:
    # Function.fused, Function.once)
    xla: bool = False
    # why the language cannot take a robot's name, or None (C++'s namespace: cpp_name_problem)
    name_problem: Callable[[str], str | None] = lambda name: None


BACKENDS = {
    "python": Backend("python", PythonPrinter, (("python/module.py.j2", "{name}.py"),),
                      python_docstring_text, python_string, "np.inf",
                      loop_operations=NUMPY_LOOP_OPERATIONS),
    # the C, and a CMake package of it that several robots' files can share a folder with
    "c": Backend("c", CPrinter, (("c/header.h.j2", "{name}.h"), ("c/source.c.j2", "{name}.c"),
                                 ("c/config.cmake.j2", "{name}Config.cmake")),
                 c_comment_text, c_string, "HUGE_VAL", c_layout=True, loop_operations=0),
    # CasADi's SX functions (the optional extra symdyn[casadi]), for optimal control
    "casadi": Backend("casadi", CasadiPrinter, (("casadi/module.py.j2", "{name}_casadi.py"),),
                      python_docstring_text, python_string, "ca.inf"),
    # jax.numpy functions (the optional extra symdyn[jax]), for learning and differentiation
    "jax": Backend("jax", JaxPrinter, (("jax/module.py.j2", "{name}_jax.py"),),
                   python_docstring_text, python_string, "float('inf')", xla=True),
    # the C with a header-only C++17 interface over it (std::array, and Eigen where the CMake
    # package finds it) and the CMake package that builds and exports them
    "cpp": Backend("cpp", CPrinter, (("c/header.h.j2", "{name}.h"), ("c/source.c.j2", "{name}.c"),
                                     ("c/config.cmake.j2", "{name}Config.cmake"),
                                     ("cpp/robot.hpp.j2", "{name}.hpp"),
                                     ("cpp/CMakeLists.txt.j2", "CMakeLists.txt")),
                   c_comment_text, c_string, "HUGE_VAL", c_layout=True, loop_operations=0,
                   name_problem=cpp_name_problem),
}
# C in single precision (generate's precision="single"): the same files, every number a float.
SINGLE_C = Backend("c", FloatCPrinter, BACKENDS["c"].files, c_comment_text, c_string,
                   "HUGE_VALF", c_layout=True, loop_operations=0)
# The CPython wrapper is made where symdyn.compile builds it, never beside the firmware's files.
WRAPPER = (("c/python.c.j2", "{name}_python.c"),)
