// openapi-lifecycle.mts BASE TOKEN NAME TYPE ZONE: a cluster's life
// through a client generated from Slipway's OpenAPI document
// (openapi-typescript types in ./api.d.ts beside this file, called with
// openapi-fetch): create as a dry run, create, wait for its operation,
// list, get, delete, wait.  Compiled with tsc against the generated
// types, so a request or a read the document does not describe fails to
// build.  Prints one JSON object of what each step saw; exits 1 on the
// first step that goes wrong.
import createClient from "openapi-fetch";
import type { paths } from "./api.js";

const [base, token, name, itype, zone] = process.argv.slice(2);
const api = createClient<paths>({
    baseUrl: base,
    headers: { Authorization: `Bearer ${token}` },
});
const seen: Record<string, unknown> = {};

function fail(step: string, what: unknown): never {
    seen.failed = step;
    seen.error = what;
    console.log(JSON.stringify(seen));
    process.exit(1);
}

async function waitFor(id: string, step: string): Promise<string> {
    const deadline = Date.now() + 300000;
    let since = -1;
    while (Date.now() < deadline) {
        const query = since >= 0 ? { timeout: 20, since_updated_ms: since }
            : { timeout: 20 };
        const { data, error } = await api.GET(
            "/api/v1/operations/{id}:wait",
            { params: { path: { id }, query } });
        if (!data) fail(step, error);
        since = data.updated_ms;
        if (data.terminal) return data.state;
    }
    return fail(step, "no end within 300 s");
}

const body = {
    name,
    instance_groups: [{ name: "workers", instance_type: itype, count: 1,
                        availability_zone: zone }],
};
const plan = await api.POST("/api/v1/clusters",
    { params: { query: { dry_run: true } }, body });
if (plan.response.status !== 200 || !plan.data || !("calls" in plan.data))
    fail("dry run", plan.error ?? plan.response.status);
seen.plan_calls = plan.data.calls.length;
seen.plan_dry_run = plan.data.dry_run;

const created = await api.POST("/api/v1/clusters", { body });
if (created.response.status !== 202 || !created.data ||
    !("operation_id" in created.data))
    fail("create", created.error ?? created.response.status);
seen.create_kind = created.data.kind;
seen.create_state = await waitFor(created.data.operation_id, "create wait");

const list = await api.GET("/api/v1/clusters");
if (!list.data) fail("list", list.error);
seen.listed = list.data.items.filter((c) => c.name === name)
    .map((c) => c.managed);

const got = await api.GET("/api/v1/clusters/{name}",
    { params: { path: { name } } });
if (!got.data) fail("get", got.error);
seen.got_name = got.data.name;
seen.got_managed = got.data.managed;

const gone = await api.DELETE("/api/v1/clusters/{name}",
    { params: { path: { name } } });
if (gone.response.status !== 202 || !gone.data ||
    !("operation_id" in gone.data))
    fail("delete", gone.error ?? gone.response.status);
seen.delete_kind = gone.data.kind;
seen.delete_state = await waitFor(gone.data.operation_id, "delete wait");

const after = await api.GET("/api/v1/clusters/{name}",
    { params: { path: { name } } });
seen.after_status = after.response.status;
console.log(JSON.stringify(seen));
