// table.js: a console's table: sort by a column (its header is a
// button; aria-sort says which way), a search over every column, a
// filter per column that has few values, and the state kept in the
// URL's query (router.js setQuery) so a link or Back brings it again.
// Several tables on one page each keep their state under their own
// prefix (ns: "groups.sort=...").  The table sits in a region that
// scrolls sideways on a narrow screen and takes the keyboard's focus;
// on a phone its rows become blocks, the header is gone (display:
// none, so its buttons take no focus) and a "Sort by" select sorts.
// useTable gives the same tools to a list that is not a table (the
// node grid, the endpoints).
import { html, useState, useEffect } from "./lib.js";
import { setQuery } from "./router.js";

// columns: [{ key, label, value(row) (sort, search and filter text),
// cell(row) (what is shown; default the value), filter (a select of
// the values) }].
export function useTable({ id, label, columns, rows, query, urlState, ns }) {
  const pre = ns ? ns + "." : "";
  const get = (k) => (query && query.get(pre + k)) || "";
  const filt = columns.filter((c) => c.filter);
  const [st, setSt] = useState(() => ({ sort: get("sort"),
    dir: get("dir") || "asc", q: get("q"),
    ...Object.fromEntries(filt.map((c) => [c.key, get(c.key)])) }));
  useEffect(() => {
    if (urlState === false) return;
    const o = { [pre + "sort"]: st.sort, [pre + "dir"]: st.sort &&
      st.dir !== "asc" ? st.dir : "", [pre + "q"]: st.q };
    for (const c of filt) o[pre + c.key] = st[c.key];
    setQuery(o);
  }, [st]);
  const val = (c, r) => {
    const v = c.value ? c.value(r) : r[c.key];
    return v === undefined || v === null ? "" : v;
  };
  const needle = st.q.trim().toLowerCase();
  let shown = rows.filter((r) => filt.every((c) => !st[c.key] ||
    String(val(c, r)) === st[c.key]) && (!needle || columns.some((c) =>
    String(val(c, r)).toLowerCase().includes(needle))));
  const sc = columns.find((c) => c.key === st.sort);
  if (sc) {
    const k = st.dir === "desc" ? -1 : 1;
    shown = shown.slice().sort((a, b) => {
      const x = val(sc, a);
      const y = val(sc, b);
      if (typeof x === "number" && typeof y === "number") return (x - y) * k;
      return String(x).localeCompare(String(y), undefined,
        { numeric: true }) * k;
    });
  }
  const sortBy = (c) => setSt({ ...st, sort: c.key, dir: st.sort === c.key &&
    st.dir === "asc" ? "desc" : "asc" });
  const sortable = columns.filter((c) => c.label);
  const tools = html`<div class="table-tools">
      <label class="compact" for=${id + "-q"}>Search
        <input type="search" id=${id + "-q"} value=${st.q}
          onInput=${(e) => setSt({ ...st, q: e.target.value })}/></label>
      ${filt.map((c) => {
        const vals = [...new Set(rows.map((r) => String(val(c, r))))]
          .filter((v) => v !== "").sort();
        if (st[c.key] && !vals.includes(st[c.key])) vals.push(st[c.key]);
        return html`<label class="compact" for=${id + "-f-" + c.key}>
          ${c.label}<select id=${id + "-f-" + c.key} data-filter=${c.key}
            value=${st[c.key]}
            onChange=${(e) => setSt({ ...st, [c.key]: e.target.value })}>
            <option value="">all</option>
            ${vals.map((v) => html`<option value=${v}>${v}</option>`)}
          </select></label>`;
      })}
      <label class="compact sort-by" for=${id + "-sort"}>Sort by
        <select id=${id + "-sort"} value=${st.sort ? st.sort + " " + st.dir :
          ""} onChange=${(e) => {
            const [sort, dir] = e.target.value.split(" ");
            setSt({ ...st, sort: sort || "", dir: dir || "asc" });
          }}><option value="">(as listed)</option>
          ${sortable.flatMap((c) => [html`<option value=${c.key + " asc"}>
            ${c.label} ▲</option>`, html`<option value=${c.key + " desc"}>
            ${c.label} ▼</option>`])}</select></label>
      <span class="muted count" role="status">${shown.length} of
        ${" " + rows.length}</span>
    </div>`;
  return { st, shown, tools, sortBy, val };
}

export function DataTable({ id, label, columns, rows, query, rowAttrs,
  empty, urlState, ns }) {
  const { st, shown, tools, sortBy, val } = useTable({ id, label, columns,
    rows, query, urlState, ns });
  return html`${tools}
    <div class="table-wrap" tabindex="0" role="region"
      aria-label=${label}>
    <table id=${id}><thead><tr>${columns.map((c) => html`<th
      aria-sort=${st.sort === c.key ? (st.dir === "desc" ? "descending" :
        "ascending") : null}>${c.label ? html`<button type="button"
        class="sort" data-sort=${c.key}
        onClick=${() => sortBy(c)}>${c.label}${st.sort === c.key ?
          (st.dir === "desc" ? " ▼" : " ▲") : ""}</button>` : html`<span
        class="sr-only">Actions</span>`}</th>`)}</tr></thead>
      <tbody>${shown.map((r) => html`<tr ...${rowAttrs ? rowAttrs(r) : {}}>
        ${columns.map((c) => html`<td data-label=${c.label || null}
          class=${c.cls || null}>${c.cell ?
          c.cell(r) :
          String(val(c, r))}</td>`)}</tr>`)}</tbody></table></div>
    ${rows.length === 0 && empty ? html`<p class="muted">${empty}</p>` :
      null}`;
}
