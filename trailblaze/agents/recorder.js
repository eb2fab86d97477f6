// Installed in every document of a browser context while the `browser` agent records.
// Turns what a person does on the page into events for trailblaze (the binding
// window.__trailblazeRecord). Each event carries what names the element, worked out now — a
// click on a link may unload the page before trailblaze can look — by the web driver's own
// page scripts (window.__trailblazeFacts is stable.js, window.__trailblazeScopes scope.js,
// installed with this one): what names it alone, else the containers that tell it apart from
// the elements with its role and name, and its position among them. It also carries an id into
// a registry, so trailblaze can check it all with Playwright when the element is still there. Only trusted events count: a person's, not the page's own;
// the others (el.click(), dispatchEvent from the page's script) are reported as ignored.
(() => {
  if (window.__trailblazeInstalled) return;
  window.__trailblazeInstalled = true;

  const elements = new Map();
  let nextElement = 0;
  let sent = 0;
  let pending = null; // text typed into a field, sent when the person moves on
  let skipClickOn = null; // a label click also clicks its control: record one of them
  let lastKeyAt = 0; // Enter/Space also "click" (a button, a form's submit button): the key is recorded
  const docId = Math.random().toString(36).slice(2);
  const MAX_IGNORED = 50; // per document: a script firing events in a loop must not flood the terminal
  let ignoredSent = 0;

  const TEXT_INPUTS = new Set(["", "text", "email", "tel", "url", "search", "number", "password", "date", "time", "datetime-local", "month", "week"]);
  const CLICKABLE = "a[href],button,input,select,textarea,label,summary,option,[role=button],[role=link],[role=checkbox]," +
    "[role=radio],[role=tab],[role=menuitem],[role=option],[role=switch],[onclick],[data-testid]";
  const KEYS = new Set(["Enter", "Tab", "Escape", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "PageUp", "PageDown",
    "Home", "End", "Backspace", "Delete", "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12"]);
  const EDITING_KEYS = new Set(["ArrowLeft", "ArrowRight", "Home", "End", "Backspace", "Delete"]);

  function isTextEntry(el) {
    if (!el || el.nodeType !== 1) return false;
    if (el.isContentEditable) return true;
    if (el.localName === "textarea") return true;
    return el.localName === "input" && TEXT_INPUTS.has((el.getAttribute("type") || "").toLowerCase());
  }

  function text(el) {
    return (el.innerText || el.textContent || "").replace(/\s+/g, " ").trim();
  }

  function roleOf(el) {
    const explicit = (el.getAttribute("role") || "").trim().split(/\s+/)[0];
    if (explicit) return explicit;
    const tag = el.localName;
    const type = (el.getAttribute("type") || "").toLowerCase();
    if (tag === "a" && el.hasAttribute("href")) return "link";
    if (tag === "button") return "button";
    if (tag === "select") return el.multiple || el.size > 1 ? "listbox" : "combobox";
    if (tag === "textarea") return "textbox";
    if (tag === "option") return "option";
    if (/^h[1-6]$/.test(tag)) return "heading";
    if (tag === "input") {
      if (["button", "submit", "reset", "image"].includes(type)) return "button";
      if (type === "checkbox") return "checkbox";
      if (type === "radio") return "radio";
      if (type === "range") return "slider";
      if (type === "number") return "spinbutton";
      if (type === "search") return el.hasAttribute("list") ? "combobox" : "searchbox";
      if (["", "text", "email", "tel", "url"].includes(type)) return el.hasAttribute("list") ? "combobox" : "textbox";
    }
    return null;
  }

  function nameOf(el, role) {
    const labelledBy = el.getAttribute("aria-labelledby");
    if (labelledBy) {
      const parts = labelledBy.split(/\s+/).map((id) => document.getElementById(id)).filter(Boolean).map(text);
      if (parts.join(" ").trim()) return parts.join(" ").trim();
    }
    const label = (el.getAttribute("aria-label") || "").trim();
    if (label) return label;
    if (el.labels && el.labels.length) return [...el.labels].map(text).join(" ").trim();
    if (el.localName === "input" && ["button", "submit", "reset"].includes(el.type)) {
      return el.value || (el.type === "submit" ? "Submit" : el.type === "reset" ? "Reset" : "");
    }
    if (["button", "link", "tab", "menuitem", "option", "heading", "checkbox", "radio", "switch"].includes(role)) {
      const content = text(el);
      if (content) return content;
    }
    return (el.getAttribute("title") || el.getAttribute("placeholder") || "").trim();
  }

  function visible(el) {
    const box = el.getBoundingClientRect();
    return box.width > 0 || box.height > 0;
  }

  // What names the element, as trailblaze's web driver works it out (stable.py's from_page
  // reads it when the element is gone by the time trailblaze looks).
  function describe(el) {
    const role = roleOf(el);
    const name = role ? nameOf(el, role) : "";
    const facts = window.__trailblazeFacts ? window.__trailblazeFacts(el) : {};
    let sameNamed = null;
    let scopes = [];
    let position = -1;
    if (role && name) {
      const same = [...document.querySelectorAll("*")].filter(
        (other) => roleOf(other) === role && visible(other) && nameOf(other, role) === name,
      );
      sameNamed = same.length;
      position = same.indexOf(el);
      if (same.length > 1 && position >= 0 && window.__trailblazeScopes) {
        try {
          scopes = window.__trailblazeScopes(same, el);
        } catch (e) {
          scopes = [];
        }
      }
    }
    let id = elements.get(el);
    if (id === undefined) {
      id = ++nextElement;
      elements.set(el, id);
      elements.set(id, el);
    }
    return { element: id, role, name, facts, sameNamed, scopes, position, tag: el.localName, type: (el.getAttribute("type") || "").toLowerCase() };
  }

  function send(kind, el, extra) {
    sent += 1;
    const event = Object.assign({ kind, doc: docId, seq: sent, url: location.href }, el ? describe(el) : {}, extra || {});
    window.__trailblazeRecord(event);
  }

  function flushTyping() {
    if (!pending) return;
    const { el } = pending;
    pending = null;
    const secret = el.localName === "input" && (el.getAttribute("type") || "").toLowerCase() === "password";
    send(secret ? "secret" : "type", el, { value: el.isContentEditable ? el.innerText : el.value });
  }

  function verifying() {
    return window.__trailblazeMode === "verify";
  }

  // an event the page's own script made: not recorded, but said, so a demonstration that
  // depended on it is not a surprise at replay
  function ignore(event) {
    if (ignoredSent >= MAX_IGNORED) return;
    ignoredSent += 1;
    send("ignored", null, { event: event.type });
  }

  document.addEventListener("click", (event) => {
    if (!event.isTrusted) return ignore(event);
    if (event.button !== 0) return;
    const raw = event.target.nodeType === 1 ? event.target : event.target.parentElement;
    if (!raw) return;
    if (verifying()) {
      // a check, not an action: the element itself, as clicked
      event.preventDefault();
      event.stopImmediatePropagation();
      const shown = text(raw);
      send("assert", raw, { text: shown.length <= 80 ? shown : "" });
      return;
    }
    let el = raw.closest(CLICKABLE) || raw;
    if (skipClickOn === el) return;
    if (event.detail === 0 && Date.now() - lastKeyAt < 500) return;
    if (pending && pending.el !== el) flushTyping();
    if (el.localName === "label" && el.control) {
      // the browser clicks the label's control next: record that click, on the control
      el = el.control;
      skipClickOn = el;
      setTimeout(() => { skipClickOn = null; }, 0);
    }
    if (isTextEntry(el) || el.localName === "select" || el.localName === "option") return;
    send("click", el);
  }, true);

  document.addEventListener("input", (event) => {
    if (!event.isTrusted) return ignore(event);
    if (verifying()) return;
    const el = event.target;
    if (!isTextEntry(el)) return;
    if (pending && pending.el !== el) flushTyping();
    pending = { el };
  }, true);

  document.addEventListener("change", (event) => {
    if (!event.isTrusted) return ignore(event);
    if (verifying()) return;
    const el = event.target;
    if (el.localName === "select") {
      if (pending) flushTyping();
      send("select", el, { values: [...el.selectedOptions].map((o) => o.value) });
    } else if (pending && pending.el === el) {
      flushTyping();
    }
  }, true);

  document.addEventListener("focusout", (event) => {
    if (pending && pending.el === event.target) flushTyping();
  }, true);

  document.addEventListener("keydown", (event) => {
    if (!event.isTrusted) return ignore(event);
    if (verifying()) return;
    if (["Shift", "Control", "Alt", "Meta"].includes(event.key)) return;
    const el = event.target;
    const combo = event.ctrlKey || event.metaKey || event.altKey;
    const typing = isTextEntry(el);
    if (typing && !combo && (!KEYS.has(event.key) || EDITING_KEYS.has(event.key))) return;
    // choosing in a <select> with the keyboard: its change event is what gets recorded
    if (el.localName === "select" && !combo && event.key !== "Tab" && event.key !== "Escape") return;
    if (typing && event.key === "Tab" && pending && pending.el === el) flushTyping();
    if (pending) flushTyping();
    const parts = [];
    if (event.ctrlKey) parts.push("Control");
    if (event.altKey) parts.push("Alt");
    if (event.metaKey) parts.push("Meta");
    if (event.shiftKey && (combo || KEYS.has(event.key))) parts.push("Shift");
    parts.push(event.key.length === 1 && combo ? event.key.toLowerCase() : event.key);
    lastKeyAt = Date.now();
    send("key", null, { key: parts.join("+") });
  }, true);

  window.__trailblazeFlush = () => {
    flushTyping();
    return { doc: docId, sent };
  };
  window.__trailblazeElement = (id) => elements.get(id) || null;
})();
