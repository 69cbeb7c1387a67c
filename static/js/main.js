// main.js: Slipway's web UI.  The shell (navigation, who is logged in)
// and the table of pages by route.  Each navigation mounts its page
// afresh under a new token (router.js), so nothing of the page left
// behind can render over the one shown now.  Text from the API is
// always rendered as text, never as HTML.  Without a session every
// page leads to the login, which carries the page asked for
// (#/login/<that hash>) and returns to it once logged in; the redirect
// replaces the history entry, so Back after logging out shows the login,
// never an empty page.
import { html, render, useState, useEffect } from "./lib.js";
import { api, onUnauthorized, currentTeam, setTeam } from "./api.js";
import {
  parseRoute, navHandle, onNavigate, go, replaceRoute,
} from "./router.js";
import { Loading } from "./ui.js";
import { Login } from "./pages/login.js";
import { Clusters } from "./pages/clusters.js";
import { Create } from "./pages/create.js";
import { Cluster } from "./pages/cluster.js";
import { Operations, Operation } from "./pages/operations.js";
import { Training, TrainingJob } from "./pages/training.js";
import { Inference } from "./pages/inference.js";
import { Spaces } from "./pages/spaces.js";
import { Settings } from "./pages/settings.js";
import { Governance, Events, Node } from "./pages/governance.js";
import { Costs } from "./pages/costs.js";
import { Fleet } from "./pages/fleet.js";
import { Notifications } from "./pages/notifications.js";
import { Teams } from "./pages/teams.js";
import { Plans, Plan } from "./pages/plans.js";

const NAV = [
  ["clusters", "Clusters"], ["create", "Create cluster"],
  ["operations", "Operations"], ["training", "Training"],
  ["inference", "Inference"], ["costs", "Costs"], ["teams", "Teams"],
  ["settings", "Settings"],
];

// The actions that change something: a read-only token may not take them.
const WRITE_ACTIONS = ":is(button.danger, button.primary, button.reboot, " +
  "button.replace, button.scale, button.upgrade, button.quota-update, " +
  "button.remove-priority, button.invoke-send, #add-priority, #retry, " +
  "#cancel, #update-software, #job-plan, #deploy-plan, #plan, " +
  "#agent-token-make, #plan-extend-submit, .tabs button)";
const NEEDS_WRITE = "Needs write scope: this token can only read";

// The page for a route: [component, props].
function pageFor(route) {
  const [a, b, c, d] = route.parts;
  const query = route.query;
  if (a === "create") return [Create, {}];
  if (a === "operations" && b) return [Operation, { id: b }];
  if (a === "operations") return [Operations, { query }];
  if (a === "clusters" && b && c === "governance")
    return [Governance, { name: b }];
  if (a === "clusters" && b && c === "events") return [Events, { name: b }];
  if (a === "clusters" && b && c === "nodes" && d)
    return [Node, { name: b, node: d }];
  if (a === "clusters" && b) return [Cluster, { name: b, query }];
  if (a === "training" && b && c) return [TrainingJob, { cluster: b, job: c }];
  if (a === "training") return [Training, { cluster: b, query }];
  if (a === "inference") return [Inference, { cluster: b }];
  if (a === "spaces") return [Spaces, { cluster: b }];
  if (a === "costs") return [Costs, { query }];
  if (a === "fleet") return [Fleet, {}];
  if (a === "notifications") return [Notifications, { query }];
  if (a === "teams") return [Teams, {}];
  if (a === "plans" && b) return [Plan, { name: b }];
  if (a === "plans") return [Plans, { query }];
  if (a === "settings") return [Settings, {}];
  return [Clusters, { query }];
}

// The login route that returns to the page shown now.
function loginFor() {
  const h = location.hash;
  if (!h || h === "#" || h === "#/" || h.startsWith("#/login")) return "#/login";
  return "#/login/" + encodeURIComponent(h);
}

// Where a login returns to: the page it was asked from, if any.
function afterLogin(parts) {
  const next = parts[1] || "";
  return /^#\/(?!login)/.test(next) ? next : "#/clusters";
}

function App() {
  const [route, setRoute] = useState(parseRoute());
  const [me, setMe] = useState(undefined);
  useEffect(() => onNavigate(setRoute), []);
  useEffect(() => {
    onUnauthorized(() => { setMe(null); replaceRoute(loginFor()); });
  }, []);
  useEffect(() => {
    if (me !== undefined) return;
    api("GET", "/whoami").then(setMe, () => setMe(null));
  }, [me]);
  useEffect(() => {
    if (me === null && route.parts[0] !== "login") replaceRoute(loginFor());
  }, [me, route]);
  /* the teams to switch between: the person's, or every team for a
   * token of no team; one team of its own is worked as at once */
  const [team, setTeamState] = useState(currentTeam());
  const [teams, setTeams] = useState([]);
  useEffect(() => {
    if (!me) return;
    if (!me.all_teams && me.teams.length === 1 && !currentTeam()) {
      setTeam(me.teams[0].team);
      setTeamState(me.teams[0].team);
    }
    api("GET", "/teams").then((d) => setTeams(d.items), () => setTeams([]));
  }, [me]);
  const switchTo = (t) => {
    setTeam(t);
    setTeamState(t);
  };
  /* a read-only token, or a viewer of the team worked as: each action
   * it may not take is disabled and says why on hover (and to a screen
   * reader) */
  useEffect(() => {
    const role = me && !me.all_teams ? ((me.teams.find((m) => m.team ===
      team) || {}).role || (me.teams.length && me.teams.every((m) =>
      m.role === "viewer") ? "viewer" : "")) : "";
    const ro = !!me && (me.scope === "read" || role === "viewer");
    const why = me && me.scope === "read" ? NEEDS_WRITE :
      "Needs the operator role" + (team ? " in team " + team : "") +
      ": a viewer can only read";
    document.body.classList.toggle("scope-read", ro);
    if (!ro) return undefined;
    const mark = () => {
      for (const b of document.querySelectorAll("main " + WRITE_ACTIONS)) {
        if (b.dataset.needsWrite) continue;
        b.dataset.needsWrite = "1";
        b.disabled = true;
        b.title = why;
      }
    };
    mark();
    const mo = new MutationObserver(mark);
    mo.observe(document.getElementById("view"), { subtree: true,
      childList: true });
    return () => mo.disconnect();
  }, [me, team]);
  const section = route.parts[0] || "clusters";
  const loggedIn = me && section !== "login";
  let page = null;
  if (section === "login") {
    page = html`<${Login} key=${route.token} nav=${navHandle(route.token)}
      onLogin=${(who) => {
        setMe(who);
        replaceRoute(afterLogin(route.parts));
      }}/>`;
  } else if (me) {
    const [Page, props] = pageFor(route);
    page = html`<${Page} key=${route.token + "/" + team}
      nav=${navHandle(route.token)} query=${route.query} me=${me}
      onTeam=${switchTo} ...${props}/>`;
  } else {
    page = html`<section class="card"><h1>Slipway</h1><${Loading}/>
      </section>`;
  }
  const logout = async () => {
    await api("POST", "/logout").catch(() => {});
    switchTo("");
    setMe(null);
    go("#/login");
  };
  return html`
    <header>
      <a class="brand" href="#/clusters">Slipway</a>
      ${loggedIn && html`<nav id="nav" aria-label="Main">
        ${NAV.map(([k, label]) => html`<a href=${"#/" + k}
          aria-current=${section === k ? "page" : null}>${label}</a>`)}
        <span id="who" title=${me.scope === "read" ? "A read-only token: " +
          "actions that change things are not shown" : null}>${me.name}
          ${" (" + me.scope + ")"}</span>
        <span id="roles">${me.all_teams ? "every team" : me.teams.map(
          (m) => m.team + ": " + m.role).join(", ") || "no team"}</span>
        ${teams.length > 0 && html`<label class="team-switch">Team
          <select id="team-switch" value=${team} onChange=${(e) =>
            switchTo(e.target.value)}>
            <option value="">${me.all_teams ? "every team" :
              "my teams"}</option>
            ${teams.map((x) => html`<option value=${x.team}>${x.team}
              </option>`)}</select></label>`}
        <button id="logout" type="button" onClick=${logout}>Log out</button>
      </nav>`}
    </header>
    <main id="view">${page}</main>`;
}

render(html`<${App}/>`, document.getElementById("app"));
