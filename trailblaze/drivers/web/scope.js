// What tells an element apart from the others like it, worked out in the page for
// trailblaze/drivers/web/stable.py: the containers that hold it and none of the others, each
// named as a person names it — the row by its row header or first cell, the card or list item
// by its heading, the fieldset by its legend, the dialog or section by its own name.
//
// Called with `els`, every element the recording's own matcher finds (Playwright found them:
// the element's role and name, its text, its tag), and `target`, the one among them to name.
// Returns candidates, best first, each a container:
//   {testId} | {css} | {role} | {role, name}   its kind (or its own name)
//   has:    {role, name} | {text}               what inside it tells it apart
//   within: a container around it, when its kind and content alone do not single it out
// Each is checked here to hold the target and none of the others, as far as this script tells
// roles and names; Playwright's own count decides (stable.py).
(els, target) => {
  const others = els.filter(e => e !== target);
  if (!others.length) return [];
  const MAX_NAME = 80;
  const MAX_RESULTS = 6;
  const doc = target.ownerDocument;
  const roots = [doc];
  const withShadows = root => {
    for (const e of root.querySelectorAll("*")) {
      if (e.shadowRoot) {
        roots.push(e.shadowRoot);
        withShadows(e.shadowRoot);
      }
    }
  };
  withShadows(doc);
  const everything = roots.flatMap(root => [...root.querySelectorAll("*")]);
  const parentOf = e => e.parentElement || (e.parentNode instanceof ShadowRoot ? e.parentNode.host : null);
  const ancestorsOf = e => {
    const out = [];
    for (let n = parentOf(e); n && n.localName !== "html"; n = parentOf(n)) out.push(n);
    return out;
  };
  const isInside = (e, outer) => ancestorsOf(e).includes(outer);
  const normalized = text => (text || "").replace(/\s+/g, " ").trim();
  const quoted = value =>
    '"' + value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\a ").replace(/\r/g, "\\d ") + '"';

  // -- roles and names, as Playwright's role engine reads them (roleUtils.ts), in short ---------
  const shown = e => {
    for (let n = e; n; n = parentOf(n)) if (n.getAttribute("aria-hidden") === "true") return false;
    if (typeof e.checkVisibility !== "function") return true;
    return e.checkVisibility({ visibilityProperty: true }) || getComputedStyle(e).display === "contents";
  };
  const hasOwnLabel = e => e.hasAttribute("aria-label") || e.hasAttribute("aria-labelledby");
  const explicitRole = e => (e.getAttribute("role") || "").trim().split(/\s+/)[0] || null;
  const INPUT_ROLES = {
    button: "button", submit: "button", reset: "button", image: "button", file: "button",
    checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton",
  };
  const headerRole = e => {
    const scope = e.getAttribute("scope");
    if (scope === "col" || scope === "colgroup") return "columnheader";
    if (scope === "row" || scope === "rowgroup") return "rowheader";
    const next = e.nextElementSibling;
    const previous = e.previousElementSibling;
    const dataCell = c => !!c && c.localName === "td" && (!!c.textContent.trim() || c.children.length > 0);
    if (!next && !previous) return "columnheader";
    if (next?.localName === "th" && previous?.localName === "th") return "columnheader";
    return dataCell(next) || dataCell(previous) ? "rowheader" : "columnheader";
  };
  const LANDMARK_BLOCKERS = "article, aside, main, nav, section";
  const implicitRole = e => {
    switch (e.localName) {
      case "a": case "area": return e.hasAttribute("href") ? "link" : null;
      case "article": return "article";
      case "aside": return "complementary";
      case "button": return "button";
      case "caption": return "caption";
      case "details": case "fieldset": case "optgroup": return "group";
      case "dialog": return "dialog";
      case "figure": return "figure";
      case "footer": return e.closest(LANDMARK_BLOCKERS) ? null : "contentinfo";
      case "form": return hasOwnLabel(e) ? "form" : null;
      case "h1": case "h2": case "h3": case "h4": case "h5": case "h6": return "heading";
      case "header": return e.closest(LANDMARK_BLOCKERS) ? null : "banner";
      case "img": return e.getAttribute("alt") === "" && !e.getAttribute("title") ? "presentation" : "img";
      case "input": {
        const type = (e.type || "").toLowerCase();
        if (type === "hidden") return null;
        if (type === "search") return "searchbox";
        return INPUT_ROLES[type] || "textbox";
      }
      case "li": return "listitem";
      case "main": return "main";
      case "menu": case "ol": case "ul": return "list";
      case "nav": return "navigation";
      case "option": return "option";
      case "output": return "status";
      case "p": return "paragraph";
      case "search": return "search";
      case "section": return hasOwnLabel(e) ? "region" : null;
      case "select": return e.multiple || e.size > 1 ? "listbox" : "combobox";
      case "table": return "table";
      case "tbody": case "tfoot": case "thead": return "rowgroup";
      case "td": {
        const table = e.closest("table");
        const role = table ? explicitRole(table) : null;
        return role === "grid" || role === "treegrid" ? "gridcell" : "cell";
      }
      case "textarea": return "textbox";
      case "th": return headerRole(e);
      case "tr": return "row";
      default: return null;
    }
  };
  const roleCache = new Map();
  const roleOf = e => {
    if (!roleCache.has(e)) roleCache.set(e, explicitRole(e) || implicitRole(e));
    return roleCache.get(e);
  };
  const FROM_CONTENT = new Set([
    "button", "cell", "checkbox", "columnheader", "gridcell", "heading", "link", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "radio", "row", "rowheader", "switch", "tab", "tooltip", "treeitem",
  ]);
  const labelOf = e => {
    const ids = (e.getAttribute("aria-labelledby") || "").split(/\s+/).filter(Boolean);
    const parts = ids.map(id => doc.getElementById(id)).filter(Boolean).map(label => contentOf(label));
    if (parts.length && normalized(parts.join(" "))) return parts.join(" ");
    const label = e.getAttribute("aria-label");
    return label && label.trim() ? label : null;
  };
  const contentOf = e => {
    let out = "";
    for (let child = e.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === Node.TEXT_NODE) {
        out += child.nodeValue || "";
      } else if (child.nodeType === Node.ELEMENT_NODE && shown(child)) {
        const own = labelOf(child);
        const part = own !== null ? own : child.localName === "img" ? child.getAttribute("alt") || "" : contentOf(child);
        out += getComputedStyle(child).display.startsWith("inline") ? part : ` ${part} `;
      }
    }
    return out;
  };
  const firstOf = (e, tag) => [...e.children].find(c => c.localName === tag);
  const nameCache = new Map();
  const nameOf = e => {
    if (nameCache.has(e)) return nameCache.get(e);
    const role = roleOf(e);
    let name = labelOf(e);
    if (name === null && ["input", "select", "textarea"].includes(e.localName) && e.labels?.length) {
      name = [...e.labels].map(label => contentOf(label)).join(" ");
    }
    if (name === null) {
      const caption = { fieldset: "legend", table: "caption", figure: "figcaption" }[e.localName];
      const captioned = caption && firstOf(e, caption);
      if (captioned) name = contentOf(captioned);
      else if (e.localName === "img") name = e.getAttribute("alt");
      else if (FROM_CONTENT.has(role)) name = contentOf(e);
    }
    name = normalized(name || e.getAttribute("title") || "");
    nameCache.set(e, name);
    return name;
  };
  // own text runs, as Playwright's :text-is reads an element (stable.js has the same)
  const ownTexts = e => {
    const runs = [];
    let run = "";
    for (let child = e.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === Node.TEXT_NODE) run += child.nodeValue || "";
      else if (child.nodeType !== Node.COMMENT_NODE) {
        if (run) runs.push(run);
        run = "";
      }
    }
    if (run) runs.push(run);
    return runs.map(normalized).filter(Boolean);
  };
  const looksGenerated = id => {
    const kind = c => (/[a-z]/.test(c) ? 1 : /[A-Z]/.test(c) ? 2 : /[0-9]/.test(c) ? 3 : 4);
    let changes = 0;
    for (let i = 1; i < id.length; i++) if (kind(id[i]) !== kind(id[i - 1])) changes++;
    return changes >= id.length / 4;
  };

  // -- what a container is, and what tells it apart ---------------------------------------------
  // roles that hold an item of a page: a row, a list item, a card, a section, a fieldset, a dialog
  const CONTAINER_ROLES = new Set([
    "row", "listitem", "article", "group", "region", "dialog", "alertdialog", "form", "cell", "gridcell",
    "rowheader", "columnheader", "caption", "option", "treeitem", "tabpanel", "table", "grid", "treegrid", "list",
    "listbox", "menu", "menubar", "toolbar", "navigation", "complementary", "figure", "search", "banner",
    "contentinfo",
  ]);
  // elements without a role that still say what they are (an unnamed <section> or <form>)
  const CONTAINER_TAGS = new Set(["section", "form"]);
  // inside a container, what a person reads it by, most telling first
  const TELLING_ROLES = ["heading", "rowheader", "cell", "gridcell", "img", "link"];
  const INTERACTIVE = new Set(["button", "link", "textbox", "searchbox", "combobox", "checkbox", "radio", "switch"]);

  const sameTestId = value => everything.filter(e => e.getAttribute("data-testid") === value);
  // the ways to say what kind of element `a` is, each with the elements of that kind
  const kindsOf = a => {
    const kinds = [];
    const testId = a.getAttribute("data-testid");
    if (testId) kinds.push({ spec: { testId }, members: () => sameTestId(testId) });
    const role = roleOf(a);
    if (role && CONTAINER_ROLES.has(role)) {
      kinds.push({ spec: { role }, members: () => everything.filter(e => roleOf(e) === role && shown(e)) });
    } else if (!role && CONTAINER_TAGS.has(a.localName)) {
      kinds.push({ spec: { css: a.localName }, members: () => everything.filter(e => e.localName === a.localName) });
    }
    return kinds;
  };
  // `a` by a name of its own: its role and accessible name (a fieldset's legend, a table's
  // caption, a dialog's or section's label), else a test id or an id no other element has
  const ownNames = a => {
    const found = [];
    const role = roleOf(a);
    if (role && CONTAINER_ROLES.has(role) && !FROM_CONTENT.has(role)) {
      const name = nameOf(a);
      if (name && name.length <= MAX_NAME) {
        const members = everything.filter(e => roleOf(e) === role && nameOf(e) === name && shown(e));
        found.push({ spec: { role, name }, members });
      }
    }
    const testId = a.getAttribute("data-testid");
    if (testId && sameTestId(testId).length === 1) found.push({ spec: { testId }, members: [a] });
    if (a.id && !looksGenerated(a.id) && everything.filter(e => e.id === a.id).length === 1) {
      const css = /^[A-Za-z_][\w-]*$/.test(a.id) ? "#" + a.id : `[id=${quoted(a.id)}]`;
      found.push({ spec: { css }, members: [a] });
    }
    return found;
  };
  // what inside `a` could tell it apart: its heading, row header, cells, pictures, links, text
  const tellingParts = a => {
    const inner = [...a.querySelectorAll("*")].filter(
      d => d !== target && !isInside(target, d) && !isInside(d, target) && shown(d),
    );
    const parts = [];
    for (const role of TELLING_ROLES) {
      for (const d of inner.filter(d => roleOf(d) === role).slice(0, 3)) {
        const name = nameOf(d);
        if (name && name.length <= MAX_NAME) parts.push({ spec: { role, name }, matches: e => roleOf(e) === role && nameOf(e) === name });
      }
    }
    for (const d of inner) {
      if (parts.length >= 10) break;
      if (INTERACTIVE.has(roleOf(d))) continue;
      const texts = ownTexts(d);
      if (texts.length === 1 && texts[0].length <= MAX_NAME) {
        const text = texts[0];
        parts.push({ spec: { text }, matches: e => ownTexts(e).includes(text) });
      }
    }
    const seen = new Set();
    return parts.filter(part => {
      const key = JSON.stringify(part.spec);
      return !seen.has(key) && seen.add(key);
    });
  };
  // the kind's members that hold a part matching `part`
  const holding = (members, part) => {
    const wanted = new Set(members);
    const found = new Set();
    for (const e of everything) {
      if (!part.matches(e)) continue;
      for (const a of ancestorsOf(e)) if (wanted.has(a)) found.add(a);
    }
    return found;
  };
  // whether the elements in `scope` hold the target and none of the others
  const separates = scope => {
    const holdsTarget = ancestorsOf(target).some(a => scope.has(a));
    return holdsTarget && others.every(o => !ancestorsOf(o).some(a => scope.has(a)));
  };
  const within = (scope, outer) => new Set([...scope].filter(e => ancestorsOf(e).some(a => outer.has(a))));

  const ancestors = ancestorsOf(target).filter(a => a.localName !== "body");
  const separating = ancestors.filter(a => !others.some(o => isInside(o, a)));
  const results = [];
  const add = spec => {
    if (results.length < MAX_RESULTS && !results.some(r => JSON.stringify(r) === JSON.stringify(spec))) results.push(spec);
  };
  const narrower = []; // a kind and a part that hold the target, and others too: an outer container may help
  // what a person reads first: a container's own name, its kind (the caption, the navigation),
  // its kind and what it holds (the row with this header); nearest first
  for (const a of separating) {
    for (const own of ownNames(a)) if (own.spec.role && separates(new Set(own.members))) add(own.spec);
    for (const kind of kindsOf(a)) {
      const members = kind.members();
      if (kind.spec.role && separates(new Set(members))) add(kind.spec);
      for (const part of tellingParts(a)) {
        const scope = holding(members, part);
        const spec = { ...kind.spec, has: part.spec };
        if (separates(scope)) add(spec);
        else if (scope.size) narrower.push({ spec, scope, from: a });
      }
    }
    if (results.length >= MAX_RESULTS) break;
  }
  // then a developer's name for it: a test id or an id
  for (const a of separating) {
    for (const own of ownNames(a)) if (!own.spec.role && separates(new Set(own.members))) add(own.spec);
  }
  for (const { spec, scope, from } of narrower) {
    if (results.length >= MAX_RESULTS) break;
    for (const outer of ancestorsOf(from).filter(a => a.localName !== "body")) {
      const named = ownNames(outer).find(own => separates(within(scope, new Set(own.members))));
      if (named) {
        add({ ...spec, within: named.spec });
        break;
      }
    }
  }
  return results;
}
