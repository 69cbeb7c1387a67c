// router.js: the route is the location hash (#/clusters/NAME, ...).
// Every navigation gets a new token; a page renders an answer only
// while its token is the current one, so a late answer for a page the
// user has left never replaces the page shown now.  A navigation also
// closes any open dialog: a confirmation asked on the page left behind
// never acts on the page shown now.

let token = 0;
const listeners = new Set();

// The route: its path parts and its query ("#/operations?state=failed":
// a table's sort, filter and search live there, so a link keeps them).
export function parseRoute() {
  const h = location.hash.replace(/^#\/?/, "");
  const q = h.indexOf("?");
  const parts = (q < 0 ? h : h.slice(0, q)).split("/")
    .filter((p) => p !== "").map(decodeURIComponent);
  const query = new URLSearchParams(q < 0 ? "" : h.slice(q + 1));
  return { parts, query, token };
}

// The hash of the current path with query (an object; empty values
// removed, keys not named kept), put in place of the current history entry without a new
// navigation: a table's state is kept in the URL as it changes.
export function setQuery(obj) {
  const h = location.hash.replace(/\?.*$/, "");
  const i = location.hash.indexOf("?");
  /* the keys not given stay (another table's state on the same page) */
  const q = new URLSearchParams(i < 0 ? "" : location.hash.slice(i + 1));
  for (const [k, v] of Object.entries(obj))
    if (v !== "" && v !== undefined && v !== null) q.set(k, v);
    else q.delete(k);
  const s = q.toString();
  history.replaceState(history.state, "", s ? h + "?" + s : h);
}

// A navigation handle for one page: current() is true until the user
// navigates elsewhere.
export function navHandle(t) {
  return { token: t, current: () => t === token };
}

// The token of the page shown now.
export function currentToken() {
  return token;
}

export function onNavigate(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function go(hash) {
  if (location.hash === hash) navigate();
  else location.hash = hash;
}

// Go to hash in place of the current history entry (a redirect: Back
// does not return to the page that redirected).
export function replaceRoute(hash) {
  if (location.hash === hash) navigate();
  else location.replace(hash);
}

function navigate() {
  token++;
  for (const d of document.querySelectorAll("dialog[open]")) d.close("");
  const r = parseRoute();
  for (const fn of listeners) fn(r);
}

window.addEventListener("hashchange", navigate);
