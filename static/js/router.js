// router.js: the route is the location hash (#/clusters/NAME, ...).
// Every navigation gets a new token; a page renders an answer only
// while its token is the current one, so a late answer for a page the
// user has left never replaces the page shown now.

let token = 0;
const listeners = new Set();

export function parseRoute() {
  const parts = location.hash.replace(/^#\/?/, "").split("/")
    .filter((p) => p !== "").map(decodeURIComponent);
  return { parts, token };
}

// A navigation handle for one page: current() is true until the user
// navigates elsewhere.
export function navHandle(t) {
  return { token: t, current: () => t === token };
}

export function onNavigate(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function go(hash) {
  if (location.hash === hash) navigate();
  else location.hash = hash;
}

function navigate() {
  token++;
  const r = parseRoute();
  for (const fn of listeners) fn(r);
}

window.addEventListener("hashchange", navigate);
