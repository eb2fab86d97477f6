"""The page-elements list upstream builds from an ARIA snapshot, and what its ids (``e5``) name.

Upstream shows a page as a list of its meaningful elements numbered ``e1``, ``e2``… in document
order (``PlaywrightAriaSnapshot.buildCompactElementList``); agents act on those ids and
recordings keep them as ``ref``. An id stands for an ARIA descriptor (``button "View"``) and its
position among equal descriptors, so for recorded refs to replay the numbering here is
upstream's to the letter: the same snapshot (Playwright's default mode), the same reading of
each line (upstream's patterns, quirks included: a name ends at its first quote), the same
choice of which lines count, the same counting of duplicates.

Each element is also paired with its line in the AI-mode snapshot, and that line's handle
(``[ref=e12]``, what ``aria-ref=`` locates) when it has one, by role, name and position among
equals, as upstream pairs the two snapshots (frames excepted: the default mode does not enter
them). The line puts the id on the screen an agent reads; the handle finds the exact element
even where role and name alone would not (a paragraph's text is not its accessible name).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from trailblaze.drivers.web import aria

# fmt: off
#: Playwright's ``AriaRole`` values; any other role reads as ``generic``
ROLES = frozenset({
    "alert", "alertdialog", "application", "article", "banner", "blockquote", "button", "caption", "cell",
    "checkbox", "code", "columnheader", "combobox", "complementary", "contentinfo", "definition", "deletion",
    "dialog", "directory", "document", "emphasis", "feed", "figure", "form", "generic", "grid", "gridcell",
    "group", "heading", "img", "insertion", "link", "list", "listbox", "listitem", "log", "main", "marquee",
    "math", "menu", "menubar", "menuitem", "menuitemcheckbox", "menuitemradio", "meter", "navigation", "none",
    "note", "option", "paragraph", "presentation", "progressbar", "radio", "radiogroup", "region", "row",
    "rowgroup", "rowheader", "scrollbar", "search", "searchbox", "separator", "slider", "spinbutton", "status",
    "strong", "subscript", "superscript", "switch", "tab", "table", "tablist", "tabpanel", "term", "textbox",
    "time", "timer", "toolbar", "tooltip", "tree", "treegrid", "treeitem",
})
#: always listed, named or not
INTERACTIVE_ROLES = frozenset({
    "button", "link", "textbox", "combobox", "searchbox", "checkbox", "radio", "switch", "tab", "menuitem",
    "option", "slider", "spinbutton",
})
#: listed when named (as is any named role that is not structural)
CONTENT_ROLES = frozenset({
    "heading", "img", "alert", "dialog", "status", "progressbar", "meter", "tooltip", "cell", "columnheader",
    "rowheader",
})
# fmt: on
STRUCTURAL_ROLES = frozenset({"generic", "none", "presentation"})

_QUOTED = re.compile(r'(\w+)\s+"(.+?)".*', re.ASCII)
_COLON = re.compile(r"(\w+)(?:\s*\[[^\]]*])*:\s*(.+)", re.ASCII)
_CONTAINER = re.compile(r"(\w+)(?:\s*\[[^\]]*])*:?\s*", re.ASCII)
ID = re.compile(r"\[?(e\d+)]?")


@dataclass(frozen=True, slots=True)
class PageElement:
    id: str
    role: str
    name: str | None
    #: position among the elements with the same descriptor
    nth: int
    #: the same element's line in the AI-mode snapshot (its index), and handle, when found there
    line: int | None = None
    handle: str | None = None
    #: the accessible name as the snapshot writes it (``name`` is upstream's reading of it,
    #: which ends at the first quote), and how many elements on the page have this role and
    #: accessible name (hidden ones are not in the snapshot, nor found by role)
    accessible_name: str | None = None
    same_named: int = 1

    @property
    def descriptor(self) -> str:
        """Upstream's descriptor: ``button "View"``, or the role alone."""
        return f'{self.role} "{self.name}"' if self.name is not None else self.role


def element_id(ref: str) -> str | None:
    """The page-element id a ref names (``e5``, also written ``[e5]``), or None."""
    m = ID.fullmatch(ref.strip())
    return m.group(1) if m else None


def read_line(line: str) -> tuple[str, str | None]:
    """A snapshot line's role and name, read as upstream reads them."""
    trimmed = line.lstrip(" -").strip()
    for pattern in (_QUOTED, _COLON):
        m = pattern.fullmatch(trimmed)
        if m:
            return m.group(1), m.group(2)
    m = _CONTAINER.fullmatch(trimmed)
    if m:
        return m.group(1), None
    return "text", trimmed or None


def _listed(role: str, name: str | None) -> bool:
    kind = role if role in ROLES else "generic"
    if kind in INTERACTIVE_ROLES:
        return True
    return name is not None and (kind in CONTENT_ROLES or kind not in STRUCTURAL_ROLES)


def page_elements(snapshot: str, ai_snapshot: str = "") -> dict[str, PageElement]:
    """The page's elements by id, numbered from a default-mode ``snapshot`` as upstream numbers
    them; each paired with its handle in ``ai_snapshot`` when given."""
    lines = _ai_lines(ai_snapshot)
    seen: dict[str, int] = {}
    elements: dict[str, PageElement] = {}
    named = Counter(aria.role_and_name(line) for line in snapshot.splitlines())
    for line in snapshot.splitlines():
        if not line.strip():
            continue
        role, name = read_line(line)
        if not _listed(role, name):
            continue
        element_id = f"e{len(elements) + 1}"
        descriptor = PageElement(element_id, role, name, 0).descriptor
        nth = seen.get(descriptor, 0)
        seen[descriptor] = nth + 1
        found = lines.get((role, name), [])
        ai_line, handle = found[nth] if nth < len(found) else (None, None)
        exact = aria.role_and_name(line)
        elements[element_id] = PageElement(
            element_id, role, name, nth, ai_line, handle, accessible_name=exact[1], same_named=named[exact]
        )
    return elements


def _ai_lines(ai_snapshot: str) -> dict[tuple[str, str | None], list[tuple[int, str | None]]]:
    """The AI-mode snapshot's lines outside frames by (role, name), in document order: each
    line's index and handle (None for a line without one, such as an option of a select)."""
    found: dict[tuple[str, str | None], list[tuple[int, str | None]]] = {}
    lines = ai_snapshot.splitlines()
    for index, (line, framed) in enumerate(zip(lines, aria.in_frames(lines), strict=True)):
        if framed or not line.strip():
            continue
        role, name = read_line(line)
        if role == "generic" and name is None:
            continue  # AI mode adds anonymous wrappers of its own
        found.setdefault((role, name), []).append((index, aria.handle(line)))
    return found
