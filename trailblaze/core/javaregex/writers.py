"""The syntax tree written out for Python's ``regex`` package and for V8."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

from trailblaze.core.javaregex.errors import JavaRegexError
from trailblaze.core.javaregex.sets import CharSet, Prop, Ranges, complement, intersect, normalize
from trailblaze.core.javaregex.syntax import Alt, Anchor, Backref, Char, Class, Dot, Grapheme, Group, Node, Repeat


class _Writer:
    """Common structure; the two engines differ in how atoms are spelled."""

    def node(self, node: Node) -> str:
        if isinstance(node, Alt):
            return "|".join(self.sequence(branch) for branch in node.branches)
        if isinstance(node, Repeat):
            return self.repeat(node)
        return self.atom(node)

    def repeat(self, node: Repeat) -> str:
        return self.atom(node.item) + _bounds(node) + node.mode

    def sequence(self, items: tuple[Node, ...]) -> str:
        return "".join(self.node(item) for item in items)

    def atom(self, node: Node) -> str:
        raise NotImplementedError

    def char(self, cp: int, in_class: bool) -> str:
        raise NotImplementedError

    def folded_char(self, node: Char) -> str:
        """A character, or the class of its case partners when case is ignored: spelled out the
        same for both engines, so they agree on what matches."""
        variants = _case_variants(node.cp, node.fold == "ascii") if node.fold else frozenset({node.cp})
        if len(variants) == 1:
            return self.char(node.cp, False)
        return "[" + "".join(self.char(cp, True) for cp in sorted(variants)) + "]"


class PythonWriter(_Writer):
    _SPECIAL = frozenset("\\^$.|?*+()[]{}")
    _CLASS_SPECIAL = frozenset("\\]^[-")

    def atom(self, node: Node) -> str:
        if isinstance(node, Char):
            return self.folded_char(node)
        if isinstance(node, Dot):
            return r"[\s\S]" if node.dotall else r"[^\n\r\x85\u2028\u2029]"
        if isinstance(node, Class):
            return self.char_set(_folded(node.expr, node.fold == "ascii") if node.fold else node.expr)
        if isinstance(node, Anchor):
            return _PYTHON_ANCHORS[(node.kind, node.multiline)]
        if isinstance(node, Backref):
            text = f"(?P={node.group})" if isinstance(node.group, str) else f"(?:\\{node.group})"
            return f"(?i:{text})" if node.fold else text
        if isinstance(node, Group):
            body = self.node(node.body)
            if node.kind == "named":
                return f"(?P<{node.name}>{body})"
            return f"{_GROUP_OPEN[node.kind]}{body})"
        if isinstance(node, Grapheme):
            return r"\X"
        return f"(?:{self.node(node)})"

    def char(self, cp: int, in_class: bool) -> str:
        char = chr(cp)
        if char in (self._CLASS_SPECIAL if in_class else self._SPECIAL):
            return "\\" + char
        if char.isprintable() and (char == " " or not char.isspace()) and not 0xD800 <= cp <= 0xDFFF:
            return char
        if cp <= 0xFF:
            return f"\\x{cp:02x}"
        return f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}"

    def char_set(self, expr: CharSet) -> str:
        flat = _flat(expr)
        if flat is not None:
            ranges, props, negated = flat
            inner = _write_ranges(ranges, lambda cp: self.char(cp, True))
            inner += "".join(("\\P" if p.negated else "\\p") + f"{{{p.python}}}" for p in props)
            if not inner:
                return r"[\s\S]" if negated else r"[^\s\S]"
            return f"[{'^' if negated else ''}{inner}]"
        return _complex_set(expr, self.char_set)


class JavaScriptWriter(_Writer):
    _SPECIAL = frozenset("\\^$.|?*+()[]{}/")
    _CLASS_SPECIAL = frozenset("\\]^[-/")
    #: a selector string carries the source: quotes and '>' would end or split it
    _SELECTOR_UNSAFE = frozenset("\"'`>")

    def __init__(self) -> None:
        self.unicode = False
        #: Java group number → its name here, when atomic groups are emulated (V8 has none:
        #: ``(?=(?<a>X))\k<a>`` matches what X matches first and never backtracks into it; the
        #: extra groups would renumber the pattern's own, so those are named too)
        self.names: dict[int, str] | None = None
        self.prefix = ""
        self.groups = 0
        self.emulated = 0

    def write(self, tree: Alt) -> str:
        nodes = list(_walk(tree))
        if any(_is_atomic(node) for node in nodes):
            groups = [node for node in nodes if isinstance(node, Group) and node.kind in ("capture", "named")]
            taken = {node.name for node in groups if node.name}
            self.prefix = "tb"
            while any(name.startswith(self.prefix) for name in taken):
                self.prefix += "x"
            self.names = {number: node.name or f"{self.prefix}g{number}" for number, node in enumerate(groups, start=1)}
        return self.node(tree)

    def atomic(self, source: str) -> str:
        self.emulated += 1
        name = f"{self.prefix}a{self.emulated}"
        return f"(?=(?<{name}>{source}))\\k<{name}>"

    def repeat(self, node: Repeat) -> str:
        if node.mode == "+":  # possessive: the greedy repeat, matched atomically
            return self.atomic(self.atom(node.item) + _bounds(node))
        return super().repeat(node)

    def atom(self, node: Node) -> str:
        if isinstance(node, Char):
            return self.folded_char(node)
        if isinstance(node, Dot):
            return r"[\s\S]" if node.dotall else r"[^\n\r\u0085\u2028\u2029]"
        if isinstance(node, Class):
            return self.char_set(_folded(node.expr, node.fold == "ascii") if node.fold else node.expr)
        if isinstance(node, Anchor):
            return _JAVASCRIPT_ANCHORS[(node.kind, node.multiline)]
        if isinstance(node, Backref):
            if isinstance(node.group, str):
                return f"\\k<{node.group}>"
            return f"\\k<{self.names[node.group]}>" if self.names is not None else f"(?:\\{node.group})"
        if isinstance(node, Group):
            return self.group(node)
        if isinstance(node, Grapheme):
            raise JavaRegexError(r"\X (a grapheme cluster) cannot be matched in the browser")
        return f"(?:{self.node(node)})"

    def group(self, node: Group) -> str:
        if node.kind in ("capture", "named"):
            self.groups += 1  # numbered by their opening parenthesis, before the groups inside
            name = node.name or (self.names[self.groups] if self.names is not None else None)
            body = self.node(node.body)
            return f"(?<{name}>{body})" if name else f"({body})"
        body = self.node(node.body)
        if node.kind == "atomic":
            return self.atomic(body)
        return f"{_GROUP_OPEN[node.kind]}{body})"

    def char(self, cp: int, in_class: bool) -> str:
        char = chr(cp)
        if char in (self._CLASS_SPECIAL if in_class else self._SPECIAL):
            return "\\" + char
        if cp > 0xFFFF:
            self.unicode = True
            return f"\\u{{{cp:x}}}"
        printable = char.isprintable() and (char == " " or not char.isspace()) and not 0xD800 <= cp <= 0xDFFF
        if printable and char not in self._SELECTOR_UNSAFE:
            return char
        return f"\\x{cp:02x}" if cp <= 0xFF else f"\\u{cp:04x}"

    def char_set(self, expr: CharSet) -> str:
        flat = _flat(expr)
        if flat is not None:
            ranges, props, negated = flat
            inner = _write_ranges(ranges, lambda cp: self.char(cp, True))
            for prop in props:
                if prop.javascript is None:
                    raise JavaRegexError(
                        f"Unicode blocks ({prop.written}) cannot be matched in the browser; use a script "
                        "(\\p{IsGreek}) or a range ([\\u0370-\\u03ff]) instead"
                    )
                self.unicode = True
                inner += ("\\P" if prop.negated else "\\p") + f"{{{prop.javascript}}}"
            return f"[{'^' if negated else ''}{inner}]" if inner or negated else "[]"
        return _complex_set(expr, self.char_set)


_GROUP_OPEN = {
    "capture": "(",
    "noncap": "(?:",
    "ahead": "(?=",
    "not-ahead": "(?!",
    "behind": "(?<=",
    "not-behind": "(?<!",
    "atomic": "(?>",
}
_PY_LINE_END = r"(?=(?:\r\n|[\n\r\x85\u2028\u2029])?\Z)"
_PYTHON_ANCHORS = {
    ("^", False): r"\A",
    ("^", True): r"(?:\A|(?<=[\n\x85\u2028\u2029]|\r(?!\n))(?!\Z))",
    ("$", False): _PY_LINE_END,
    ("$", True): r"(?=[\n\r\x85\u2028\u2029]|\Z)(?!(?<=\r)\n)",
    ("A", False): r"\A",
    ("z", False): r"\Z",
    ("Z", False): _PY_LINE_END,
    # between ASCII word characters, as Java's \w has them (and V8's \b)
    ("b", False): r"(?a:\b)",
    ("B", False): r"(?a:\B)",
}
# Plain ^ and $ keep V8's linear-time engine available; names never contain line breaks.
_JAVASCRIPT_ANCHORS = {
    ("^", False): "^",
    ("^", True): r"(?:^|(?<=[\n\r\u0085\u2028\u2029]))",
    ("$", False): "$",
    ("$", True): r"(?:$|(?=[\n\r\u0085\u2028\u2029]))",
    ("A", False): "^",
    ("z", False): "$",
    ("Z", False): "$",
    ("b", False): r"\b",
    ("B", False): r"\B",
}


def _bounds(node: Repeat) -> str:
    high = "" if node.high is None else str(node.high)
    return {(0, None): "*", (1, None): "+", (0, 1): "?"}.get(
        (node.low, node.high), f"{{{node.low}}}" if node.high == node.low else f"{{{node.low},{high}}}"
    )


def _walk(node: Node) -> Iterator[Node]:
    """``node`` and everything in it, in the order the pattern writes them."""
    yield node
    if isinstance(node, Alt):
        for branch in node.branches:
            for item in branch:
                yield from _walk(item)
    elif isinstance(node, Repeat):
        yield from _walk(node.item)
    elif isinstance(node, Group):
        yield from _walk(node.body)


def _is_atomic(node: Node) -> bool:
    return (isinstance(node, Group) and node.kind == "atomic") or (isinstance(node, Repeat) and node.mode == "+")


def _flat(expr: CharSet) -> tuple[Ranges, list[Prop], bool] | None:
    """``expr`` as one bracket class: (ranges, properties, negated), or None if it needs more."""
    if expr.op == "ranges":
        return expr.ranges, [], False
    if expr.op == "prop":
        assert expr.prop is not None
        return (), [expr.prop], False
    if expr.op == "union":
        ranges: list[tuple[int, int]] = []
        props: list[Prop] = []
        for part in expr.parts:
            flat = _flat(part)
            if flat is None:
                return None
            if flat[2]:
                if flat[1]:
                    return None
                flat = (complement(flat[0]), [], False)
            ranges.extend(flat[0])
            props.extend(flat[1])
        return normalize(ranges), props, False
    if expr.op == "and" and all(part.op == "ranges" for part in expr.parts):
        common = expr.parts[0].ranges
        for part in expr.parts[1:]:
            common = intersect(common, part.ranges)
        return common, [], False
    if expr.op == "not":
        inner = _flat(expr.parts[0])
        if inner is None:
            return None
        return inner[0], inner[1], not inner[2]
    return None


def _complex_set(expr: CharSet, write: Callable[[CharSet], str]) -> str:
    """A set no single bracket class spells: unions as alternatives, intersections as lookaheads."""
    if expr.op == "union":
        return "(?:" + "|".join(write(part) for part in expr.parts) + ")"
    if expr.op == "and":
        *checks, last = expr.parts
        return "(?:" + "".join(f"(?={write(part)})" for part in checks) + write(last) + ")"
    return f"(?:(?!{write(expr.parts[0])})[\\s\\S])"


def _write_ranges(ranges: Ranges, char: object) -> str:
    assert callable(char)
    out = []
    for low, high in ranges:
        if low == high:
            out.append(char(low))
        elif high == low + 1:
            out.append(char(low) + char(high))
        else:
            out.append(f"{char(low)}-{char(high)}")
    return "".join(out)


#: the last code point with a case (Adlam)
_LAST_CASED = 0x1E943
#: code points looked at together when finding case partners
_BLOCK = 256


@functools.cache
def _case_partners() -> dict[str, frozenset[int]]:
    """Every cased character, under the lower- and the upper-case character it maps to."""
    partners: dict[str, set[int]] = {}
    uncased: set[int] = set()
    for start in range(0, _LAST_CASED + 1, _BLOCK):
        block = "".join(map(chr, range(start, min(start + _BLOCK, _LAST_CASED + 1))))
        # most blocks have no case at all (CJK, Hangul, symbols): one comparison skips them
        # (looking at each of their characters made the first case-insensitive match of a
        # process take seconds on a busy machine). A character of such a block is its own
        # only partner, which is what a lookup that finds nothing means.
        if block.lower() == block == block.upper():
            uncased.add(start)
            continue
        for offset, char in enumerate(block):
            for mapped in (char.lower(), char.upper()):
                if len(mapped) == 1:
                    partners.setdefault(mapped, set()).add(start + offset)
    for mapped, cps in partners.items():  # a cased character may map into such a block
        if ord(mapped) - ord(mapped) % _BLOCK in uncased:
            cps.add(ord(mapped))
    return {mapped: frozenset(cps) for mapped, cps in partners.items()}


@functools.lru_cache(maxsize=4096)
def _case_variants(cp: int, ascii_only: bool = False) -> frozenset[int]:
    """The characters equal to ``cp`` ignoring case, as Java compares them: with UNICODE_CASE
    the same upper case or the same lower case (``ß`` and ``ẞ``, ``s`` and ``ſ``); without it
    (``ascii_only``) only ASCII letters have partners, and only ASCII ones."""
    char = chr(cp)
    if ascii_only:
        return frozenset({cp, ord(char.swapcase())}) if char.isascii() and char.isalpha() else frozenset({cp})
    found = {cp}
    for mapped in (char.lower(), char.upper()):
        if len(mapped) == 1:
            found |= _case_partners().get(mapped, frozenset())
    return frozenset(found)


#: case folding is spelled out for at most this many characters of a class (bigger ranges
#: already hold nearly all their case partners)
_FOLD_BUDGET = 0x20000


def _folded(expr: CharSet, ascii_only: bool) -> CharSet:
    """``expr`` with the case partners of its characters added (for V8 without the ``i`` flag)."""
    if expr.op == "ranges":
        if ascii_only:
            letters = [(max(low, 0x41), min(high, 0x7A)) for low, high in expr.ranges if low <= 0x7A and high >= 0x41]
            swapped = [
                (partner, partner)
                for low, high in letters
                for cp in range(low, high + 1)
                for partner in _case_variants(cp, True)
            ]
            return CharSet("ranges", ranges=normalize([*expr.ranges, *swapped]))
        if sum(high - low + 1 for low, high in expr.ranges) > _FOLD_BUDGET:
            return expr
        extra = [
            (variant, variant)
            for low, high in expr.ranges
            for cp in range(low, high + 1)
            for variant in _case_variants(cp)
        ]
        return CharSet("ranges", ranges=normalize([*expr.ranges, *extra]))
    if expr.parts:
        parts = tuple(_folded(part, ascii_only) for part in expr.parts)
        return CharSet(expr.op, ranges=expr.ranges, prop=expr.prop, parts=parts)
    return expr
