// teams.js: the teams the person is in (every team for a token of no
// team), the person's role in each, and who the members are: the
// provider groups the configuration maps to each role.  For a team the
// person administers (platform-admin, or a token of no team), its
// service accounts with their role and expiry; they are made and
// revoked on the Settings page or through token_create/token_revoke.
// "Work as" sets the header's team switcher to that team.
import { html } from "../lib.js";
import { api, enc, currentTeam, setTeam } from "../api.js";
import { Loading, ErrorText, useLive, Updated, fmtTime } from "../ui.js";
import { DataTable } from "../table.js";

const groups = (t, role) => ((t.groups || {})[role] || []).join(", ") ||
  "none";

const ACCOUNT_COLUMNS = [
  { key: "name", label: "Service account", filter: true },
  { key: "role", label: "Role", filter: true },
  { key: "expires_ms", label: "Expires", value: (a) => a.expires_ms || 0,
    cell: (a) => a.expires_ms ? html`<time>${fmtTime(a.expires_ms)}</time>` :
      "never" },
  { key: "revoked", label: "Revoked", value: (a) => a.revoked ? "yes" :
    "no" },
];

// The service accounts of the teams me may administer.
async function accounts(me, teams) {
  const out = {};
  await Promise.all(teams.filter((t) => me.all_teams ||
    t.role === "platform-admin").map(async (t) => {
    out[t.team] = (await api("GET", "/tokens?team=" + enc(t.team))).items;
  }));
  return out;
}

export function Teams({ nav, query, me, onTeam }) {
  const [st] = useLive(nav, async () => {
    const teams = await api("GET", "/teams");
    return { teams, accounts: await accounts(me, teams.items) };
  }, [], 30000);
  const d = st.data;
  const columns = [
    { key: "team", label: "Team", filter: true },
    { key: "role", label: "Your role", value: (t) => t.role ||
      (d && d.teams.all_teams ? "every role (no team)" : "") },
    { key: "viewer", label: "Viewers", value: (t) => groups(t, "viewer") },
    { key: "operator", label: "Operators", value: (t) =>
      groups(t, "operator") },
    { key: "platform-admin", label: "Platform-admins", value: (t) =>
      groups(t, "platform-admin") },
    { key: "", label: "", cell: (t) => currentTeam() === t.team ?
      html`<span class="muted">working as</span>` : html`<button
        type="button" class="work-as" onClick=${() => {
          setTeam(t.team);
          onTeam(t.team);
        }}>Work as ${t.team}</button>` },
  ];
  return html`<section class="card" id="teams">
    <h1>Teams</h1>
    <${Updated} st=${st}/>
    <p class="muted">A team owns the namespace hyperpod-ns-<team> on the
      clusters and the jobs, downloads and endpoints in it. Members come
      from the sign-in provider's groups (team.<team>.<role> in the
      configuration); service accounts belong to one team and role.</p>
    ${st.loading && !d && html`<${Loading}/>`}<${ErrorText} error=${st.error}/>
    ${d && html`<${DataTable} id="team-list" ns="teams" label="Teams"
      columns=${columns} rows=${d.teams.items} query=${query}
      rowAttrs=${(t) => ({ "data-team": t.team })}
      empty="In no team: ask a platform-admin to map one of your groups."/>
    ${Object.entries(d.accounts).map(([team, list]) => html`<h2>Service
      accounts of ${team}</h2><${DataTable} id=${"accounts-" + team}
      ns=${"acc-" + team} label=${"Service accounts of " + team}
      columns=${ACCOUNT_COLUMNS} rows=${list} query=${query}
      rowAttrs=${(a) => ({ "data-account": a.name })}
      empty="None: make one on the Settings page."/>`)}`}
  </section>`;
}
