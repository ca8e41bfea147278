"""symengine's expressions back in sympy's form, built without sympy's simplifying constructors.

symengine does the heavy algebra (expansion, CSE, differentiation), and sympy holds the
programs. Converting back is the slow half of each trip: sympy's Add and Mul re-derive a
canonical form (collecting terms, merging powers, sorting) that a symengine sum or product
already has but for the order of its arguments. Here such a sum or product only has its
arguments sorted as sympy sorts them; the cases sympy would change beyond the order (a number
times a sum, roots and powers of numbers, nested sums) still go through sympy's constructors,
so the result is the very expression ``sympy.sympify`` gives, and each shared subexpression is
converted once.
"""
from __future__ import annotations

import functools
from operator import attrgetter
from typing import Mapping

import symengine
import sympy
from sympy.core.basic import _args_sortkey, ordering_of_classes

# The order symdyn builds sums of named symbols in, and sympy's order among plain symbols.
by_name = attrgetter("name")


def expand(expr, memo: dict | None = None) -> sympy.Expr:
    """sympy.expand by symengine, many times faster on long sums; ``expr`` is sympy's or
    symengine's, ``memo`` to_sympy's."""
    return to_sympy(symengine.expand(symengine.sympify(expr)), memo)


def as_engine(x):
    """sympy's ``x`` as symengine's; a plain symbol made by its name, without sympify's
    dispatch on the type (most of what derivations hand over is a step's symbol)."""
    return symengine.Symbol(x.name) if type(x) is sympy.Symbol else symengine.sympify(x)


def engine_form(expr: sympy.Expr, forms: Mapping):
    """``expr`` as symengine's: as ``forms`` holds it (the form a derivation built it in, see
    Program.engine_forms), else converted."""
    form = forms.get(expr)
    return symengine.sympify(expr) if form is None else form


def to_sympy(expr, memo: dict | None = None) -> sympy.Expr:
    """``expr`` (symengine's) as sympy's; ``memo`` carries conversions across calls."""
    memo = {} if memo is None else memo
    out = memo.get(expr)
    if out is None:
        out = memo[expr] = _convert(expr, memo)
    return out


def _convert(expr, memo: dict) -> sympy.Expr:
    if isinstance(expr, (symengine.Add, symengine.Mul)):
        # the arguments split into numbers and the rest as they are converted; most sums and
        # products are of plain symbols, whose order is their names' (the loop, the memo
        # inlined: a quarter of the conversion's time)
        get = memo.get
        numbers, rest, symbols = [], [], True
        for a in expr.args:
            x = get(a)
            if x is None:
                x = memo[a] = _convert(a, memo)
            if x.is_Number:
                numbers.append(x)
            else:
                rest.append(x)
                symbols = symbols and type(x) is sympy.Symbol
        cls = sympy.Add if isinstance(expr, symengine.Add) else sympy.Mul
        if len(numbers) > 1 or not _sorted_is_canonical(cls, numbers, rest, symbols):
            return cls(*numbers, *rest)
        if symbols:
            rest.sort(key=by_name)      # what sympy's order is for symbols alike but in name
            return cls._from_args(numbers + rest, True)
        try:
            rest.sort(key=_sort_key)
        except _Unkeyed:
            rest.sort(key=_args_sortkey)
        # commutativity given, as sympy's constructors would find it, without its fuzzy logic
        commutative = all(a.is_commutative is True for a in rest) or None
        return cls._from_args(numbers + rest, commutative)
    if isinstance(expr, symengine.Pow):
        return sympy.Pow(to_sympy(expr.args[0], memo), to_sympy(expr.args[1], memo))
    if isinstance(expr, symengine.Function) and expr.args:
        # arguments through the memo too, which may rename symbols (the CSE pass's temporaries)
        func = getattr(sympy, type(expr).__name__, None)
        if func is not None:
            return func(*(to_sympy(a, memo) for a in expr.args))
    return _leaf(expr)


@functools.lru_cache(maxsize=1 << 16)
def _leaf(expr) -> sympy.Expr:
    """A symbol (a Dummy stays one) or a number; the same few thousand come back again and
    again, each as one object (sympy makes an equal symbol anew once its own small cache has
    let it go), and sympify takes a good part of the conversion's time."""
    if type(expr) is symengine.Symbol:
        return sympy.Symbol(expr.name)     # what sympify makes of it, in a third of the time
    return sympy.sympify(expr)


_RANKS = {name: k for k, name in enumerate(ordering_of_classes)}
_UNRANKED = len(ordering_of_classes) + 1
_FLOAT_RANK = _RANKS["Float"]


class _Unkeyed(Exception):
    """An expression holding what ``_sort_key`` does not order (a frozenset)."""


@functools.lru_cache(maxsize=1 << 14)
def _sort_key(expr) -> tuple:
    """sympy's canonical order of arguments (Basic.compare) as a key, computed once for each
    subexpression: compare walks both trees again at every comparison of a sort, a tenth of
    the time of generating a 20-joint chain. Classes by their rank in sympy's list, unlisted
    ones after them by name; then the length of the contents, then the contents in turn."""
    name = type(expr).__name__
    rank = _RANKS.get(name, _UNRANKED)
    content = expr._hashable_content()
    items = []
    for item in content:
        if type(item) is sympy.Float:
            # not through the cache: a Float's hash converts it to a float every time (its
            # contents, the mpf tuple and the precision, hold nothing to key)
            number = item._hashable_content()
            item = _FLOAT_RANK, "", len(number), number
        elif isinstance(item, sympy.Basic):
            item = _sort_key(item)
        elif isinstance(item, frozenset):
            raise _Unkeyed
        items.append(item)
    return rank, name if rank == _UNRANKED else "", len(content), tuple(items)


def _sorted_is_canonical(cls, numbers, rest, symbols: bool) -> bool:
    """Whether sympy's constructor would only sort these arguments (at most one number;
    ``symbols``: the rest are all plain symbols)."""
    if numbers and numbers[0] is (sympy.S.Zero if cls is sympy.Add else sympy.S.One):
        return False
    if symbols:
        return True
    if cls is sympy.Add:
        return not any(a.is_Add for a in rest)
    if numbers and len(rest) == 1 and rest[0].is_Add:
        return False        # sympy distributes a number over a sum: 2*(x + y) = 2*x + 2*y
    # sympy merges numeric factors, sqrt(2)*sqrt(3) = sqrt(6), and powers of numbers,
    # 2**x*3**x = 6**x
    return not any(a.is_Mul or a.is_number or a.is_Pow and a.base.is_number
                   or not a.is_commutative for a in rest)
