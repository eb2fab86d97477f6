"""Character sets as Java's regex syntax names them: ranges of code points, and Unicode properties.

Java's predefined classes (``\\d``, ``\\w``, ``\\s``…) and POSIX classes (``\\p{Alpha}``…)
are US-ASCII, as in Java; they are kept as ranges, so both engines read them alike. Unicode
categories, scripts and binary properties become a :class:`Prop` each engine spells its way.
"""

from __future__ import annotations

from dataclasses import dataclass

from trailblaze.core.javaregex.errors import JavaRegexError

MAX_CODE_POINT = 0x10FFFF

Ranges = tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class Prop:
    """A Unicode property: its spelling for ``regex`` and for V8 (None: V8 has no such property)."""

    python: str
    javascript: str | None
    negated: bool = False
    #: as the pattern wrote it, for messages
    written: str = ""


@dataclass(frozen=True, slots=True)
class CharSet:
    """A character-class expression: ``op`` is ranges, prop, union, and or not."""

    op: str
    ranges: Ranges = ()
    prop: Prop | None = None
    parts: tuple[CharSet, ...] = ()


def normalize(ranges: list[tuple[int, int]] | Ranges) -> Ranges:
    merged: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if merged and low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return tuple(merged)


def complement(ranges: Ranges) -> Ranges:
    out, start = [], 0
    for low, high in ranges:
        if low > start:
            out.append((start, low - 1))
        start = high + 1
    if start <= MAX_CODE_POINT:
        out.append((start, MAX_CODE_POINT))
    return tuple(out)


def intersect(a: Ranges, b: Ranges) -> Ranges:
    out = [(max(l1, l2), min(h1, h2)) for l1, h1 in a for l2, h2 in b if max(l1, l2) <= min(h1, h2)]
    return normalize(out)


def chars_of(text: str) -> Ranges:
    return normalize([(ord(c), ord(c)) for c in text])


_DIGIT = ((0x30, 0x39),)
_UPPER = ((0x41, 0x5A),)
_LOWER = ((0x61, 0x7A),)
_ALPHA = normalize([*_UPPER, *_LOWER])
_ALNUM = normalize([*_ALPHA, *_DIGIT])
_PUNCT = ((0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E))
_SPACE = ((0x09, 0x0D), (0x20, 0x20))
PREDEFINED: dict[str, Ranges] = {
    "d": _DIGIT,
    "w": normalize([*_ALNUM, (0x5F, 0x5F)]),
    "s": _SPACE,
    "h": normalize(
        [
            (0x09, 0x09),
            (0x20, 0x20),
            (0xA0, 0xA0),
            (0x1680, 0x1680),
            (0x180E, 0x180E),
            (0x2000, 0x200A),
            (0x202F, 0x202F),
            (0x205F, 0x205F),
            (0x3000, 0x3000),
        ]
    ),
    "v": normalize([(0x0A, 0x0D), (0x85, 0x85), (0x2028, 0x2029)]),
}
#: POSIX classes: US-ASCII in Java unless UNICODE_CHARACTER_CLASS
_POSIX: dict[str, Ranges] = {
    "Lower": _LOWER,
    "Upper": _UPPER,
    "ASCII": ((0x00, 0x7F),),
    "Alpha": _ALPHA,
    "Digit": _DIGIT,
    "Alnum": _ALNUM,
    "Punct": _PUNCT,
    "Graph": ((0x21, 0x7E),),
    "Print": ((0x20, 0x7E),),
    "Blank": ((0x09, 0x09), (0x20, 0x20)),
    "Cntrl": ((0x00, 0x1F), (0x7F, 0x7F)),
    "XDigit": normalize([*_DIGIT, (0x41, 0x46), (0x61, 0x66)]),
    "Space": _SPACE,
    "L1": ((0x00, 0xFF),),
    "all": ((0, MAX_CODE_POINT),),
    # java.lang.Character predicates that are plain sets
    "javaWhitespace": normalize(
        [
            (0x09, 0x0D),
            (0x1C, 0x20),
            (0x1680, 0x1680),
            (0x2000, 0x2006),
            (0x2008, 0x200A),
            (0x2028, 0x2029),
            (0x205F, 0x205F),
            (0x3000, 0x3000),
        ]
    ),
    "javaISOControl": ((0x00, 0x1F), (0x7F, 0x9F)),
}
_CATEGORIES = frozenset(
    {"L", "Lu", "Ll", "Lt", "Lm", "Lo", "LC", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Ps"}
    | {"Pe", "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So", "Z", "Zs", "Zl", "Zp", "C", "Cc", "Cf", "Cs", "Co", "Cn"}
)
#: Java's binary properties (``\p{IsAlphabetic}``), by upper-case name, as Unicode spells them
_BINARY = {
    "ALPHABETIC": "Alphabetic",
    "IDEOGRAPHIC": "Ideographic",
    "LOWERCASE": "Lowercase",
    "UPPERCASE": "Uppercase",
    "WHITE_SPACE": "White_Space",
    "WHITESPACE": "White_Space",
    "HEX_DIGIT": "Hex_Digit",
    "HEXDIGIT": "Hex_Digit",
    "JOIN_CONTROL": "Join_Control",
    "JOINCONTROL": "Join_Control",
    "NONCHARACTER_CODE_POINT": "Noncharacter_Code_Point",
    "NONCHARACTERCODEPOINT": "Noncharacter_Code_Point",
    "ASSIGNED": "Assigned",
    "EMOJI": "Emoji",
    "EMOJI_PRESENTATION": "Emoji_Presentation",
    "EMOJI_MODIFIER": "Emoji_Modifier",
    "EMOJI_MODIFIER_BASE": "Emoji_Modifier_Base",
    "EMOJI_COMPONENT": "Emoji_Component",
    "EXTENDED_PICTOGRAPHIC": "Extended_Pictographic",
}
#: Java's binary properties that are general categories
_BINARY_CATEGORY = {"LETTER": "L", "TITLECASE": "Lt", "CONTROL": "Cc", "PUNCTUATION": "P", "DIGIT": "Nd"}
#: java.lang.Character predicates with a Unicode equivalent (``\p{javaLowerCase}``)
_JAVA_CHARACTER = {
    "javaLowerCase": ("Lowercase",),
    "javaUpperCase": ("Uppercase",),
    "javaTitleCase": ("Lt",),
    "javaDigit": ("Nd",),
    "javaDefined": ("Assigned",),
    "javaLetter": ("L",),
    "javaLetterOrDigit": ("L", "Nd"),
    "javaAlphabetic": ("Alphabetic",),
    "javaIdeographic": ("Ideographic",),
    "javaSpaceChar": ("Z",),
    "javaMirrored": ("Bidi_Mirrored",),
    "LD": ("L", "Nd"),
}


def _prop_set(names: tuple[str, ...], negated: bool) -> CharSet:
    parts = tuple(CharSet("prop", prop=Prop(name, name)) for name in names)
    expr = parts[0] if len(parts) == 1 else CharSet("union", parts=parts)
    return CharSet("not", parts=(expr,)) if negated else expr


def property_set(name: str, negated: bool) -> CharSet:
    """``\\p{name}`` as Java resolves the name."""
    if name in _POSIX:
        ranges = _POSIX[name]
        return CharSet("ranges", ranges=complement(ranges) if negated else ranges)
    if name in _CATEGORIES:
        return CharSet("prop", prop=Prop(name, name, negated))
    if name in _JAVA_CHARACTER:
        return _prop_set(_JAVA_CHARACTER[name], negated)
    if name == "javaIdentifierIgnorable":
        controls = CharSet("ranges", ranges=((0x00, 0x08), (0x0E, 0x1B), (0x7F, 0x9F)))
        expr = CharSet("union", parts=(controls, CharSet("prop", prop=Prop("Cf", "Cf"))))
        return CharSet("not", parts=(expr,)) if negated else expr
    key, equals, value = name.partition("=")
    if equals:
        key = key.lower()
        if key in ("sc", "script"):
            return _script(value, negated)
        if key in ("blk", "block"):
            return _block(value, negated)
        if key in ("gc", "general_category") and value in _CATEGORIES:
            return CharSet("prop", prop=Prop(value, value, negated))
        raise JavaRegexError(f"unknown character property \\p{{{name}}}")
    if name.startswith("In"):
        return _block(name[2:], negated)
    if name.startswith("Is"):
        rest = name[2:]
        upper = rest.upper()
        if upper in _BINARY:
            return CharSet("prop", prop=Prop(_BINARY[upper], _BINARY[upper], negated))
        if upper in _BINARY_CATEGORY:
            category = _BINARY_CATEGORY[upper]
            return CharSet("prop", prop=Prop(category, category, negated))
        if rest in _CATEGORIES:
            return CharSet("prop", prop=Prop(rest, rest, negated))
        return _script(rest, negated)
    if name.startswith("java"):
        raise JavaRegexError(f"\\p{{{name}}} is a Java-only class with no equivalent here; list its characters instead")
    raise JavaRegexError(f"unknown character property \\p{{{name}}}")


def _script(value: str, negated: bool) -> CharSet:
    if not value or not value.replace("_", "").isalnum():
        raise JavaRegexError(f"unknown script {value!r} in \\p{{…}}")
    canonical = "_".join(word[:1].upper() + word[1:].lower() for word in value.split("_"))
    return CharSet("prop", prop=Prop(f"Script={canonical}", f"Script={canonical}", negated))


def _block(value: str, negated: bool) -> CharSet:
    if not value or not value.replace("_", "").replace(" ", "").isalnum():
        raise JavaRegexError(f"unknown Unicode block {value!r} in \\p{{…}}")
    written = f"\\{'P' if negated else 'p'}{{In{value}}}"
    return CharSet("prop", prop=Prop(f"Block={value.replace(' ', '_')}", None, negated, written))
