// Safe rendering. Text from the server or the model only ever becomes a Text node or an attribute
// value set through the DOM API: nothing here parses a string as HTML, so markup in an answer, a
// citation title or a document body shows as the characters it is. Links are same-origin paths only.
// Every builder takes the document to build in, so it runs in Node against a stand-in.

export const SVG_NS = 'http://www.w3.org/2000/svg';
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'xlink:href', 'poster', 'srcset']);

/** An HTML element with attributes and children (strings become text nodes). */
export function h(doc, tag, attrs = {}, children = []) {
  const element = doc.createElement(tag);
  setAttributes(element, attrs);
  append(doc, element, children);
  return element;
}

/** An SVG element, the same way. */
export function svg(doc, tag, attrs = {}, children = []) {
  const element = doc.createElementNS(SVG_NS, tag);
  setAttributes(element, attrs);
  append(doc, element, children);
  return element;
}

export function setAttributes(element, attrs) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (/^on/i.test(name) || name.toLowerCase() === 'style') {
      throw new TypeError(`refusing to set ${name}: no inline handlers or styles (CSP)`);
    }
    const text = value === true ? '' : String(value);
    if (URL_ATTRIBUTES.has(name.toLowerCase()) && !isSafeUrl(text)) {
      throw new TypeError(`refusing ${name}=${JSON.stringify(text.slice(0, 40))}: only same-origin paths`);
    }
    element.setAttribute(name, text);
  }
}

/** A same-origin path (`/x`, not `//host` or `/\host`) or a fragment. */
export function isSafeUrl(url) {
  return /^\/(?![/\\])/.test(url) || url.startsWith('#');
}

export function append(doc, element, children) {
  for (const child of [children].flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.appendChild(typeof child === 'object' ? child : doc.createTextNode(String(child)));
  }
  return element;
}

/** Replace an element's content with text. */
export function setText(element, text) {
  if (element.textContent !== text) element.textContent = String(text);
}

const shownText = new WeakMap();

/**
 * Keep an element's text equal to `text` while it grows: what extends the text shown is appended as
 * a new text node (screen readers in an aria-live region read just that); anything else replaces it.
 */
export function streamText(doc, element, text) {
  const shown = shownText.get(element) ?? '';
  if (text === shown) return;
  if (shown !== '' && text.startsWith(shown)) {
    element.appendChild(doc.createTextNode(text.slice(shown.length)));
  } else {
    element.textContent = text;
  }
  shownText.set(element, text);
}

/** Reconcile a list's children with `rows` by key, updating in place so unchanged rows are not re-announced. */
export function syncList(doc, list, rows, { key, create, update }) {
  const byKey = new Map();
  for (const child of Array.from(list.children)) byKey.set(child.getAttribute('data-key'), child);
  let previous = null;
  for (const row of rows) {
    const id = String(key(row));
    let item = byKey.get(id);
    if (item === undefined) {
      item = create(row);
      item.setAttribute('data-key', id);
    }
    byKey.delete(id);
    update(item, row);
    const expected = previous === null ? list.firstChild : previous.nextSibling;
    if (expected !== item) list.insertBefore(item, expected ?? null);
    previous = item;
  }
  for (const stale of byKey.values()) list.removeChild(stale);
}
