"""Java's regex grammar (``java.util.regex.Pattern``), read into a small syntax tree.

Flags are resolved while reading, as Java resolves them: ``(?i)`` holds to the end of the
enclosing group, so every character, class and back reference carries whether case is ignored,
every dot whether it matches line breaks, every ``^``/``$`` whether it is per line. ``(?x)``
comments are skipped, ``\\Q…\\E`` becomes the characters it quotes.
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass
from typing import Literal

from trailblaze.core.javaregex.errors import JavaRegexError
from trailblaze.core.javaregex.sets import (
    MAX_CODE_POINT,
    PREDEFINED,
    CharSet,
    chars_of,
    complement,
    normalize,
    property_set,
)

_COMMENT_SPACE = " \t\n\x0b\f\r"

#: how case is ignored: not ("", the default), for ASCII letters only (Java's ``(?i)``), or for
#: all of Unicode (``(?iu)``, UNICODE_CASE)
Fold = Literal["", "ascii", "unicode"]


@dataclass(frozen=True, slots=True)
class Char:
    cp: int
    fold: Fold


@dataclass(frozen=True, slots=True)
class Dot:
    dotall: bool


@dataclass(frozen=True, slots=True)
class Class:
    expr: CharSet
    fold: Fold


@dataclass(frozen=True, slots=True)
class Anchor:
    kind: str  # ^ $ A z Z b B
    multiline: bool = False


@dataclass(frozen=True, slots=True)
class Backref:
    group: int | str
    fold: Fold


@dataclass(frozen=True, slots=True)
class Group:
    kind: str  # capture named noncap ahead not-ahead behind not-behind atomic
    body: Alt
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Repeat:
    item: Node
    low: int
    high: int | None
    mode: str  # "" greedy, "?" reluctant, "+" possessive


@dataclass(frozen=True, slots=True)
class Grapheme:
    pass


@dataclass(frozen=True, slots=True)
class Alt:
    branches: tuple[tuple[Node, ...], ...]


Node = Char | Dot | Class | Anchor | Backref | Group | Repeat | Grapheme | Alt


class Parser:
    """Java's ``Pattern`` grammar, read into the tree above."""

    def __init__(self, pattern: str, flags: str) -> None:
        self.text = pattern
        self.at = 0
        self.flags = {flag: flag in flags for flag in "ismxu"}
        # a caller's CASE_INSENSITIVE is Kotlin's IGNORE_CASE option, which adds UNICODE_CASE;
        # an inline (?i) in the pattern alone folds ASCII letters only, as in Java
        self.flags["u"] = self.flags["u"] or self.flags["i"]
        self.groups = 0
        self.names: set[str] = set()
        self.references: list[tuple[int | str, int]] = []

    def fail(self, message: str, at: int | None = None) -> JavaRegexError:
        return JavaRegexError(f"{message} at position {self.at if at is None else at}")

    def parse(self) -> Alt:
        tree = self.alternation()
        if self.at < len(self.text):
            raise self.fail("unmatched ')'")
        for group, at in self.references:
            if isinstance(group, int) and group > self.groups:
                raise self.fail(f"\\{group} refers to a group that does not exist", at)
            if isinstance(group, str) and group not in self.names:
                raise self.fail(f"\\k<{group}> refers to a group that does not exist", at)
        return tree

    # reading

    def peek(self) -> str:
        """The next character that means something ('' at the end), skipping comments in (?x)."""
        if self.flags["x"]:
            while self.at < len(self.text):
                char = self.text[self.at]
                if char in _COMMENT_SPACE:
                    self.at += 1
                elif char == "#":
                    while self.at < len(self.text) and self.text[self.at] not in "\n\r\x85\u2028\u2029":
                        self.at += 1
                else:
                    break
        return self.text[self.at] if self.at < len(self.text) else ""

    def take(self) -> str:
        char = self.peek()
        self.at += 1
        return char

    def looking_at(self, prefix: str) -> bool:
        return self.text.startswith(prefix, self.at)

    # structure

    def alternation(self) -> Alt:
        branches = [self.sequence()]
        while self.peek() == "|":
            self.at += 1
            branches.append(self.sequence())
        return Alt(tuple(branches))

    def sequence(self) -> tuple[Node, ...]:
        items: list[Node] = []
        while (char := self.peek()) not in ("", "|", ")"):
            atoms = self.atom(char)
            if not atoms:
                continue
            items.extend(atoms[:-1])
            items.append(self.quantified(atoms[-1]))
        return tuple(items)

    def quantified(self, item: Node) -> Node:
        start = self.at
        bounds = self.quantifier()
        if bounds is None:
            return item
        if isinstance(item, Anchor) or (isinstance(item, Group) and item.kind not in _REPEATABLE_GROUPS):
            raise self.fail("a quantifier here repeats nothing", start)
        low, high = bounds
        mode = ""
        if self.peek() in ("?", "+"):
            mode = self.take()
        if self.quantifier_ahead():
            raise self.fail("a quantifier follows a quantifier")
        return Repeat(item, low, high, mode)

    def quantifier(self) -> tuple[int, int | None] | None:
        char = self.peek()
        if char in ("*", "+", "?"):
            self.at += 1
            return {"*": (0, None), "+": (1, None), "?": (0, 1)}[char]
        if char == "{":
            bounds = self.braces()
            if bounds is not None:
                return bounds
        return None

    def quantifier_ahead(self) -> bool:
        char = self.peek()
        if char in ("*", "+", "?"):
            return True
        if char == "{":
            at = self.at
            found = self.braces() is not None
            self.at = at
            return found
        return False

    def braces(self) -> tuple[int, int | None] | None:
        """``{n}``, ``{n,}``, ``{n,m}`` at the cursor (consumed), or None (a literal brace)."""
        end = self.text.find("}", self.at)
        if end < 0:
            return None
        low, comma, high = self.text[self.at + 1 : end].partition(",")
        if not low.isdigit() or not low.isascii() or (high and not (high.isdigit() and high.isascii())):
            return None
        bounds = (int(low), int(high) if high else (None if comma else int(low)))
        if bounds[1] is not None and bounds[1] < bounds[0]:
            raise self.fail(f"illegal repetition range {{{low},{high}}}")
        self.at = end + 1
        return bounds

    def atom(self, char: str) -> list[Node]:
        if char == "(":
            group = self.group()
            return [] if group is None else [group]
        if char == "[":
            self.at += 1
            return [Class(self.char_class(), self.fold())]
        self.at += 1
        if char == ".":
            return [Dot(self.flags["s"])]
        if char in ("^", "$"):
            return [Anchor(char, self.flags["m"])]
        if char == "\\":
            return self.escape()
        if char in ("*", "+", "?") or (char == "{" and self.braces_at(self.at - 1)):
            raise self.fail(f"dangling meta character {char!r}", self.at - 1)
        return [Char(ord(char), self.fold())]

    def fold(self) -> Fold:
        if not self.flags["i"]:
            return ""
        return "unicode" if self.flags["u"] else "ascii"

    def braces_at(self, at: int) -> bool:
        saved = self.at
        self.at = at
        found = self.braces() is not None
        self.at = saved
        return found

    def group(self) -> Node | None:
        start = self.at
        self.at += 1
        kind, name = "capture", None
        saved = dict(self.flags)
        if self.looking_at("?"):
            self.at += 1
            for prefix, prefix_kind in _GROUP_PREFIXES:
                if self.looking_at(prefix):
                    self.at += len(prefix)
                    kind = prefix_kind
                    break
            else:
                if self.looking_at("<"):
                    self.at += 1
                    name = self.group_name(">")
                    if name in self.names:
                        raise self.fail(f"the group name {name!r} is used twice")
                    kind = "named"
                else:
                    if self.flag_group():  # (?i) changes the flags of the rest of the enclosing group
                        return None
                    kind = "noncap"
        if kind in ("capture", "named"):
            self.groups += 1
        body = self.alternation()
        if self.peek() != ")":
            raise self.fail("unclosed group", start)
        self.at += 1
        self.flags = saved
        if name is not None:
            self.names.add(name)
        return Group(kind, body, name)

    def flag_group(self) -> bool:
        """``(?idmsuxU-idmsuxU)`` (True: done) or the flags of ``(?i:…)`` (False: body follows)."""
        on = True
        while True:
            char = self.text[self.at] if self.at < len(self.text) else ""
            self.at += 1
            if char == "-":
                on = False
            elif char in "idmsuxU" and char:
                if char in self.flags:
                    self.flags[char] = on
                elif on:  # d and U change what ., ^, $, \w, \d, \s and \b mean: not translated
                    meaning = "UNIX_LINES" if char == "d" else "UNICODE_CHARACTER_CLASS"
                    raise self.fail(
                        f"the inline flag {char!r} ({meaning}) is not supported"
                        + (r"; use \p{…} classes such as \p{L} or \p{IsAlphabetic} instead" if char == "U" else ""),
                        self.at - 1,
                    )
            elif char == ")":
                return True
            elif char == ":":
                return False
            else:
                raise self.fail(f"unknown inline flag {char!r}" if char else "unclosed group", self.at - 1)

    def group_name(self, close: str) -> str:
        end = self.text.find(close, self.at)
        name = self.text[self.at : end] if end >= 0 else ""
        if not (name[:1].isascii() and name[:1].isalpha() and name.isascii() and name.isalnum()):
            raise self.fail("a group name is a letter followed by letters and digits")
        self.at = end + 1
        return name

    # escapes

    def escape(self) -> list[Node]:
        start = self.at - 1
        if self.at >= len(self.text):
            raise self.fail("unexpected end of the pattern after '\\'", start)
        char = self.text[self.at]
        self.at += 1
        fold = self.fold()
        if char == "Q":
            end = self.text.find("\\E", self.at)
            quoted = self.text[self.at :] if end < 0 else self.text[self.at : end]
            self.at = len(self.text) if end < 0 else end + 2
            return [Char(ord(c), fold) for c in quoted]
        if char in "123456789":
            return [self.backreference(int(char), start)]
        if char == "k":
            if not self.looking_at("<"):
                raise self.fail("\\k is followed by <name>", start)
            self.at += 1
            name = self.group_name(">")
            self.references.append((name, start))
            return [Backref(name, fold)]
        if char in "AzZ":
            return [Anchor(char)]
        if char in "bB":
            if self.looking_at("{"):
                raise self.fail(f"\\{char}{{…}} boundaries are not supported", start)
            return [Anchor(char)]
        if char == "G":
            raise self.fail("\\G (the end of the previous match) is not supported", start)
        if char == "R":
            crlf = (Char(0x0D, ""), Char(0x0A, ""))
            single = (Class(CharSet("ranges", ranges=((0x0A, 0x0D), (0x85, 0x85), (0x2028, 0x2029))), ""),)
            return [Group("atomic", Alt((crlf, single)))]
        if char == "X":
            return [Grapheme()]
        expr = self.class_escape(char, start)
        if isinstance(expr, int):
            return [Char(expr, fold)]
        return [Class(expr, fold)]

    def backreference(self, number: int, start: int) -> Backref:
        while self.at < len(self.text) and self.text[self.at].isdigit() and self.text[self.at].isascii():
            longer = number * 10 + int(self.text[self.at])
            if longer > self.groups:
                break
            number = longer
            self.at += 1
        self.references.append((number, start))
        return Backref(number, self.fold())

    def class_escape(self, char: str, start: int) -> CharSet | int:
        """An escape that means one character (its code point) or a set; shared by classes."""
        simple = {"t": 0x09, "n": 0x0A, "r": 0x0D, "f": 0x0C, "a": 0x07, "e": 0x1B}
        if char in simple:
            return simple[char]
        if char.lower() in PREDEFINED:
            ranges = PREDEFINED[char.lower()]
            return CharSet("ranges", ranges=complement(ranges) if char.isupper() else ranges)
        if char in "pP":
            return self.property(char == "P", start)
        if char == "0":
            digits = ""
            while len(digits) < 3 and self.at < len(self.text) and self.text[self.at] in "01234567":
                if len(digits) == 2 and digits[0] > "3":
                    break
                digits += self.text[self.at]
                self.at += 1
            if not digits:
                raise self.fail("illegal octal escape", start)
            return int(digits, 8)
        if char == "x":
            if self.looking_at("{"):
                end = self.text.find("}", self.at)
                return self.hex(self.text[self.at + 1 : end] if end > 0 else "", start, end + 1)
            return self.hex(self.text[self.at : self.at + 2], start, self.at + 2, width=2)
        if char == "u":
            cp = self.hex(self.text[self.at : self.at + 4], start, self.at + 4, width=4)
            if 0xD800 <= cp <= 0xDBFF and self.looking_at("\\u"):
                low = self.text[self.at + 2 : self.at + 6]
                if _is_hex(low, 4) and 0xDC00 <= int(low, 16) <= 0xDFFF:
                    self.at += 6
                    return 0x10000 + ((cp - 0xD800) << 10) + (int(low, 16) - 0xDC00)
            return cp
        if char == "c":
            if self.at >= len(self.text):
                raise self.fail("\\c is followed by a character", start)
            self.at += 1
            return ord(self.text[self.at - 1]) ^ 64
        if char == "N":
            end = self.text.find("}", self.at)
            if not self.looking_at("{") or end < 0:
                raise self.fail("\\N is followed by {NAME}", start)
            name = self.text[self.at + 1 : end]
            self.at = end + 1
            try:
                return ord(unicodedata.lookup(name))
            except KeyError:
                raise self.fail(f"unknown character name {name!r}", start) from None
        if char.isascii() and char.isalnum():
            raise self.fail(f"illegal or unsupported escape sequence \\{char}", start)
        return ord(char)

    def hex(self, digits: str, start: int, end: int, width: int | None = None) -> int:
        if not _is_hex(digits, width) or int(digits, 16) > MAX_CODE_POINT:
            raise self.fail("illegal hexadecimal escape", start)
        self.at = end
        return int(digits, 16)

    def property(self, negated: bool, start: int) -> CharSet:
        if self.looking_at("{"):
            end = self.text.find("}", self.at)
            if end < 0:
                raise self.fail("unclosed character property", start)
            name = self.text[self.at + 1 : end]
            self.at = end + 1
        elif self.at < len(self.text):
            name = self.text[self.at]
            self.at += 1
        else:
            raise self.fail("\\p is followed by a property", start)
        return property_set(name, negated)

    # classes

    def char_class(self) -> CharSet:
        """After ``[``: a class up to its ``]``, with Java's union ``[a[b]]`` and ``&&``."""
        start = self.at - 1
        negated = False
        if self.peek() == "^":
            self.at += 1
            negated = True
        operands: list[CharSet] = []
        union: list[CharSet] = []
        first = True
        while True:
            char = self.peek()
            if char == "":
                raise self.fail("unclosed character class", start)
            if char == "]" and not first:
                self.at += 1
                break
            first = False
            if self.looking_at("&&"):
                self.at += 2
                if union:
                    operands.append(union_of(union))
                union = []
                continue
            if char == "[":
                self.at += 1
                union.append(self.char_class())
                continue
            union.extend(self.class_items())
        if union or not operands:
            operands.append(union_of(union))
        expr = operands[0] if len(operands) == 1 else CharSet("and", parts=tuple(operands))
        return CharSet("not", parts=(expr,)) if negated else expr

    def class_items(self) -> list[CharSet]:
        """One member of a class: a character, a range, an escape, or a quoted run."""
        first = self.class_member()
        if isinstance(first, list):
            return first
        if isinstance(first, CharSet):
            return [first]
        save = self.at
        if self.peek() == "-":
            self.at += 1
            if self.peek() in ("]", "") or self.looking_at("["):
                self.at = save
                return [CharSet("ranges", ranges=((first, first),))]
            last = self.class_member()
            if not isinstance(last, int):
                raise self.fail("a range ends with a character")
            if last < first:
                raise self.fail("illegal character range", save - 1)
            return [CharSet("ranges", ranges=((first, last),))]
        return [CharSet("ranges", ranges=((first, first),))]

    def class_member(self) -> int | CharSet | list[CharSet]:
        start = self.at
        char = self.take()
        if char != "\\":
            return ord(char)
        if self.at >= len(self.text):
            raise self.fail("unexpected end of the pattern after '\\'", start)
        char = self.text[self.at]
        self.at += 1
        if char == "Q":
            end = self.text.find("\\E", self.at)
            quoted = self.text[self.at :] if end < 0 else self.text[self.at : end]
            self.at = len(self.text) if end < 0 else end + 2
            return [CharSet("ranges", ranges=chars_of(quoted))] if quoted else []
        if char in "bBAzZGRXk" or char in "123456789":
            raise self.fail(f"\\{char} cannot be used in a character class", start)
        return self.class_escape(char, start)


_GROUP_PREFIXES = (
    (":", "noncap"),
    ("=", "ahead"),
    ("!", "not-ahead"),
    ("<=", "behind"),
    ("<!", "not-behind"),
    (">", "atomic"),
)
_REPEATABLE_GROUPS = frozenset({"capture", "named", "noncap", "atomic"})


def union_of(parts: list[CharSet]) -> CharSet:
    if len(parts) == 1:
        return parts[0]
    if all(part.op == "ranges" for part in parts):
        return CharSet("ranges", ranges=normalize([r for part in parts for r in part.ranges]))
    return CharSet("union", parts=tuple(parts))


@functools.lru_cache(maxsize=1024)
def parse(pattern: str, flags: str = "s") -> Alt:
    try:
        return Parser(pattern, flags).parse()
    except RecursionError:
        raise JavaRegexError("the pattern nests too deeply") from None


def _is_hex(digits: str, width: int | None) -> bool:
    return bool(digits) and all(c in "0123456789abcdefABCDEF" for c in digits) and width in (None, len(digits))
