// What makes one element findable again, worked out in the page in one evaluation
// (trailblaze/web/stable.py decides among them). Every selector returned here finds exactly
// this element, counted as Playwright's CSS engine counts: the document and every open
// shadow root (Playwright looks inside them), hidden elements included.
//
// Returns {framed: true} for an element inside a frame (a selector of the top document cannot
// name it); else, each only when it names this element alone:
//   testId       the data-testid value (recorded as dataTestId)
//   name         tag[name="…"]            form controls, as Playwright's codegen writes them
//   id           #id or [id="…"]          ids that do not look generated
//   placeholder  tag[placeholder="…"]
//   text         tag:text-is("…")         Playwright's exact-text pseudo-class
//   path         the shortest chain of tag names (nth-of-type where needed) that is unique
//                below the nearest ancestor that has one of the above, else below the document
// and, unique or not, what it is among others like it (stable.py tells it apart by them):
//   tag          its tag name
//   ownText      its own text, when it has one run of it (at most 80 characters)
el => {
  if (window.top !== window) return { framed: true };
  const doc = el.ownerDocument;
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
  const count = selector => {
    try {
      let n = 0;
      for (const root of roots) n += root.querySelectorAll(selector).length;
      return n;
    } catch (e) {
      return Infinity;
    }
  };
  const names = (selector, target) => {
    try {
      const found = [];
      for (const root of roots) {
        found.push(...root.querySelectorAll(selector));
        if (found.length > 1) return false;
      }
      return found.length === 1 && found[0] === target;
    } catch (e) {
      return false;
    }
  };
  const quoted = value =>
    '"' + value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\a ").replace(/\r/g, "\\d ") + '"';
  const normalized = text => text.trim().replace(/\s+/g, " ");
  // an id made by a framework (":r1:", a UUID) changes from build to build: the character
  // class changes often in it
  const looksGenerated = id => {
    const kind = c => (/[a-z]/.test(c) ? 1 : /[A-Z]/.test(c) ? 2 : /[0-9]/.test(c) ? 3 : 4);
    let changes = 0;
    for (let i = 1; i < id.length; i++) if (kind(id[i]) !== kind(id[i - 1])) changes++;
    return changes >= id.length / 4;
  };
  const byId = e => {
    if (!e.id || looksGenerated(e.id)) return null;
    return /^[A-Za-z_][\w-]*$/.test(e.id) ? "#" + e.id : `[id=${quoted(e.id)}]`;
  };
  const byTestId = e => {
    const value = e.getAttribute("data-testid");
    return value ? `[data-testid=${quoted(value)}]` : null;
  };
  const byName = e => {
    const value = e.getAttribute("name");
    return value ? `${e.localName}[name=${quoted(value)}]` : null;
  };
  // the text of an element as Playwright's text-is reads it: each run of its own text nodes
  // between child elements (a button input's value)
  const ownTexts = e => {
    if (e.localName === "input" && ["submit", "button", "reset"].includes(e.type)) return [e.value];
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
  const parentOf = e => e.parentElement || (e.parentNode instanceof ShadowRoot ? e.parentNode.host : null);

  const found = { tag: el.localName };
  const testId = byTestId(el);
  if (testId && names(testId, el)) found.testId = el.getAttribute("data-testid");
  for (const [key, selector] of [
    ["name", byName(el)],
    ["id", byId(el)],
    ["placeholder", el.getAttribute("placeholder") ? `${el.localName}[placeholder=${quoted(el.getAttribute("placeholder"))}]` : null],
  ]) {
    if (selector && names(selector, el)) found[key] = selector;
  }
  const texts = ownTexts(el);
  if (texts.length === 1 && texts[0].length <= 80) {
    found.ownText = texts[0];
    const selector = `${el.localName}:text-is(${quoted(texts[0])})`;
    // querySelectorAll does not know Playwright's pseudo-class: count the same way it matches
    let same = 0;
    for (const root of roots) {
      for (const e of root.querySelectorAll(el.localName)) if (ownTexts(e).includes(texts[0])) same++;
    }
    if (same === 1 && !doc.head?.contains(el)) found.text = selector;
  }

  // the structural path: ancestors up to the nearest one that a stable selector names alone
  const chain = [];
  let anchor = "";
  for (let e = parentOf(el); e && e.localName !== "body" && e.localName !== "html"; e = parentOf(e)) {
    const own = [byTestId(e), byId(e), byName(e)].find(selector => selector && names(selector, e));
    if (own) {
      anchor = own + " ";
      break;
    }
    chain.push(e);
  }
  const plain = e => e.localName;
  const positioned = e => {
    const parent = e.parentNode;
    const same = parent ? [...parent.children].filter(c => c.localName === e.localName) : [e];
    return same.length > 1 ? `${e.localName}:nth-of-type(${same.indexOf(e) + 1})` : null;
  };
  // add the fewest ancestors, each as plainly as will do, until one element is left
  let parts = [plain(el)];
  let matches = count(anchor + parts.join(" "));
  const own = positioned(el);
  const fewer = n => n >= 1 && n < matches; // 0: a chain the engine does not follow (a shadow root)
  if (matches > 1 && own && fewer(count(anchor + own))) {
    parts = [own];
    matches = count(anchor + own);
  }
  for (const e of chain) {
    if (matches <= 1) break;
    for (const token of [plain(e), positioned(e)]) {
      if (!token) continue;
      const tried = count(anchor + [token, ...parts].join(" "));
      if (fewer(tried)) {
        parts = [token, ...parts];
        matches = tried;
        break;
      }
    }
  }
  // an ancestor added early may be redundant once a later one narrowed it down
  for (let i = parts.length - 2; matches === 1 && i >= 0; i--) {
    const fewerParts = parts.filter((_, j) => j !== i);
    if (names(anchor + fewerParts.join(" "), el)) parts = fewerParts;
  }
  let path = anchor + parts.join(" ");
  if (!names(path, el)) {
    // every step from the anchor (or the body) down, each pinned among its siblings
    const steps = [el, ...chain].reverse().map(e => positioned(e) || plain(e));
    path = (anchor ? anchor + "> " : "body > ") + steps.join(" > ");
  }
  if (names(path, el)) found.path = path;
  return found;
}
