// The bearer token of a service with identity on: kept in sessionStorage (this tab, until it closes or
// signs out) and added as `Authorization: Bearer <token>` to every request the page makes, the stream's
// reconnects included. With identity off the page never holds one and its requests go out as they were.

import { load, save } from './storage.js';

export const TOKEN_KEY = 'harness.token';

/** The signed-in token of this tab; where storage refuses, it lives in this page's memory only. */
export function createCredentials(storage, key = TOKEN_KEY) {
  let memory = load(storage, key) || null;
  return {
    get token() {
      return memory;
    },
    signIn(token) {
      memory = token;
      save(storage, key, token);
    },
    signOut() {
      memory = null;
      save(storage, key, null);
    },
  };
}

/**
 * What was typed into the sign-in field as a token, or null for nothing usable: the space around it and a
 * pasted `Bearer ` go; what is left must be one run of visible ASCII, as a header value has to be.
 */
export function tokenFrom(input) {
  const token = String(input ?? '')
    .trim()
    .replace(/^bearer\s+/i, '');
  return /^[\x21-\x7e]+$/.test(token) ? token : null;
}

/**
 * A fetch that adds the token, read at each call (a sign-in between two reconnects counts), to requests
 * whose `headers` are a plain object, as every request of this app's modules is. Each 401 it sees goes
 * to `onRefused(response, token, {url, ended})` as well, with a copy of the response (the caller still
 * reads its own), the token it was sent with (null: none), the URL refused, and whether that token had
 * been taken before (`ended`: a sign-in that worked has ended, the token revoked or expired, rather than
 * a token that never worked), so one place asks for a sign-in, whoever called.
 */
export function withBearer(fetch, readToken, onRefused = () => {}) {
  let taken = null;
  return async (url, init = {}) => {
    const token = readToken() || null;
    const sent = token === null ? init : { ...init, headers: { ...init.headers, Authorization: `Bearer ${token}` } };
    const response = await fetch(url, sent);
    if (response.status === 401) onRefused(response.clone(), token, { url, ended: token !== null && token === taken });
    else if (response.ok && token !== null) taken = token;
    return response;
  };
}
