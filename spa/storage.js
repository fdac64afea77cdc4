// Web Storage that may be unavailable (private mode, a full quota, a blocked origin): reads answer null
// and writes are dropped, so the page works without it.

export function load(storage, key) {
  try {
    return storage.getItem(key);
  } catch {
    return null;
  }
}

/** Store `value`, or remove the key when it is null. */
export function save(storage, key, value) {
  try {
    if (value === null) storage.removeItem(key);
    else storage.setItem(key, value);
  } catch {
    // the page works without it
  }
}
