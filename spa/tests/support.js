// Shared by the unit tests: recorded streams, and a stand-in DOM small enough to read. The stand-in
// throws on innerHTML/outerHTML writes and insertAdjacentHTML, so a test fails if code reaches for them.

import { readFileSync } from 'node:fs';
import { SSEDecoder } from '../sse.js';

const FIXTURES = new URL('./fixtures/', import.meta.url);

/** The bytes of a stream recorded from the real server (`harness serve`, stub model). */
export function fixtureBytes(name) {
  return new Uint8Array(readFileSync(new URL(`${name}.sse`, FIXTURES)));
}

/** Parse bytes split into the given chunks; answers every event and every retry seen. */
export function parseChunks(chunks) {
  const events = [];
  const retries = [];
  const comments = [];
  const decoder = new SSEDecoder({
    onEvent: (event) => events.push(event),
    onRetry: (ms) => retries.push(ms),
    onComment: (text) => comments.push(text),
  });
  for (const chunk of chunks) decoder.feed(chunk);
  decoder.end();
  return { events, retries, comments, lastEventId: decoder.lastEventId };
}

/** The envelopes of a recorded stream, in order. */
export function envelopes(name) {
  return parseChunks([fixtureBytes(name)]).events.map((event) => JSON.parse(event.data));
}

export const encode = (text) => new TextEncoder().encode(text);

/** Freeze a value and everything in it, so a reducer that mutates its input throws (modules are strict). */
export function deepFreeze(value) {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

// --- a stand-in DOM ---

class FakeNode {
  constructor(doc) {
    this.ownerDocument = doc;
    this.parentNode = null;
    this.childNodes = [];
  }

  get firstChild() {
    return this.childNodes[0] ?? null;
  }

  get lastChild() {
    return this.childNodes.at(-1) ?? null;
  }

  get nextSibling() {
    if (!this.parentNode) return null;
    const siblings = this.parentNode.childNodes;
    return siblings[siblings.indexOf(this) + 1] ?? null;
  }

  get children() {
    return this.childNodes.filter((node) => node instanceof FakeElement);
  }

  appendChild(node) {
    return this.insertBefore(node, null);
  }

  insertBefore(node, reference) {
    node.parentNode?.removeChild(node);
    const index = reference === null ? this.childNodes.length : this.childNodes.indexOf(reference);
    if (index === -1) throw new Error('insertBefore: the reference is not a child');
    this.childNodes.splice(index, 0, node);
    node.parentNode = this;
    return node;
  }

  removeChild(node) {
    const index = this.childNodes.indexOf(node);
    if (index === -1) throw new Error('removeChild: not a child');
    this.childNodes.splice(index, 1);
    node.parentNode = null;
    return node;
  }

  replaceChildren(...nodes) {
    for (const node of [...this.childNodes]) this.removeChild(node);
    for (const node of nodes) this.appendChild(typeof node === 'string' ? this.ownerDocument.createTextNode(node) : node);
  }

  remove() {
    this.parentNode?.removeChild(this);
  }

  get textContent() {
    return this.childNodes.map((node) => node.textContent).join('');
  }

  set textContent(value) {
    this.replaceChildren(...(value === '' ? [] : [this.ownerDocument.createTextNode(String(value))]));
  }
}

export class FakeText extends FakeNode {
  constructor(doc, data) {
    super(doc);
    this.data = data;
  }

  get textContent() {
    return this.data;
  }

  set textContent(value) {
    this.data = String(value);
  }
}

export class FakeElement extends FakeNode {
  constructor(doc, tagName, namespaceURI) {
    super(doc);
    this.tagName = tagName;
    this.namespaceURI = namespaceURI;
    this.attributes = new Map();
  }

  setAttribute(name, value) {
    this.attributes.set(name, String(value));
  }

  getAttribute(name) {
    return this.attributes.has(name) ? this.attributes.get(name) : null;
  }

  removeAttribute(name) {
    this.attributes.delete(name);
  }

  hasAttribute(name) {
    return this.attributes.has(name);
  }

  set innerHTML(_) {
    throw new Error('innerHTML written');
  }

  set outerHTML(_) {
    throw new Error('outerHTML written');
  }

  insertAdjacentHTML() {
    throw new Error('insertAdjacentHTML called');
  }

  /** Every element below this one (depth first) matching a predicate. */
  findAll(predicate) {
    const found = [];
    const walk = (node) => {
      for (const child of node.children) {
        if (predicate(child)) found.push(child);
        walk(child);
      }
    };
    walk(this);
    return found;
  }

  find(predicate) {
    return this.findAll(predicate)[0] ?? null;
  }
}

export function fakeDocument() {
  const doc = {
    createElement: (tag) => new FakeElement(doc, tag, 'http://www.w3.org/1999/xhtml'),
    createElementNS: (namespace, tag) => new FakeElement(doc, tag, namespace),
    createTextNode: (data) => new FakeText(doc, String(data)),
  };
  return doc;
}

const escapeText = (text) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const escapeAttribute = (text) => escapeText(text).replaceAll('"', '&quot;');

/** HTML as a browser would serialize the stand-in tree: how the markup of a text node would look. */
export function serialize(node) {
  if (node instanceof FakeText) return escapeText(node.data);
  const attributes = [...node.attributes].map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`).join('');
  return `<${node.tagName}${attributes}>${node.childNodes.map(serialize).join('')}</${node.tagName}>`;
}
