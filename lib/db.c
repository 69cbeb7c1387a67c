/*
 * db.c: the state store (see db.h).  Holds the schema migrations,
 * numbered by the schema version (SQLite's PRAGMA user_version) and
 * applied in one transaction each, and the statement table: all SQL of
 * the program, indexed by enum sw_stmt, prepared on first use and kept
 * for the connection's life.  The engine-neutral API of db.h is here;
 * each engine's calls into its library are in db_sqlite.c and db_pg.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/buf.h"
#include "lib/alloc.h"
#include "lib/db.h"
#include "lib/db_engine.h"
#include "lib/fault.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "lib/json.h"

/* Each entry moves the schema from version i to i + 1. */
static const char *const migrations[] = {
	/* 1: tokens, sessions, operations, stages, events */
	"CREATE TABLE tokens ("
	"  id TEXT PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  scope TEXT NOT NULL CHECK (scope IN ('read','write','admin')),"
	"  hash BLOB NOT NULL,"
	"  created INTEGER NOT NULL,"
	"  last_used INTEGER,"
	"  revoked INTEGER);"
	"CREATE TABLE sessions ("
	"  id TEXT PRIMARY KEY,"
	"  hash BLOB NOT NULL,"
	"  token_id TEXT NOT NULL REFERENCES tokens(id),"
	"  created INTEGER NOT NULL,"
	"  expires INTEGER NOT NULL);"
	"CREATE TABLE operations ("
	"  id TEXT PRIMARY KEY,"
	"  kind TEXT NOT NULL,"
	"  target TEXT NOT NULL,"
	"  cluster TEXT,"
	"  params TEXT NOT NULL,"
	"  state TEXT NOT NULL CHECK (state IN"
	"    ('pending','running','succeeded','failed','cancelled')),"
	"  idem_key TEXT,"
	"  idem_hash TEXT,"
	"  token_name TEXT NOT NULL,"
	"  created INTEGER NOT NULL,"
	"  updated INTEGER NOT NULL,"
	"  due INTEGER NOT NULL,"
	"  lease_owner TEXT,"
	"  lease_until INTEGER NOT NULL DEFAULT 0,"
	"  cancel_requested INTEGER NOT NULL DEFAULT 0,"
	"  result TEXT,"
	"  error TEXT);"
	"CREATE UNIQUE INDEX operations_idem ON operations(token_name, idem_key)"
	"  WHERE idem_key IS NOT NULL;"
	"CREATE INDEX operations_due ON operations(state, due);"
	"CREATE INDEX operations_created ON operations(created);"
	"CREATE TABLE stages ("
	"  op_id TEXT NOT NULL REFERENCES operations(id),"
	"  seq INTEGER NOT NULL,"
	"  name TEXT NOT NULL,"
	"  state TEXT NOT NULL CHECK (state IN"
	"    ('pending','running','succeeded','failed','cancelled','skipped')),"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  started INTEGER,"
	"  finished INTEGER,"
	"  ext TEXT NOT NULL DEFAULT '{}',"
	"  error TEXT,"
	"  PRIMARY KEY (op_id, seq));"
	"CREATE TABLE events ("
	"  id INTEGER PRIMARY KEY AUTOINCREMENT,"
	"  op_id TEXT NOT NULL REFERENCES operations(id),"
	"  time INTEGER NOT NULL,"
	"  stage INTEGER,"
	"  level TEXT NOT NULL,"
	"  message TEXT NOT NULL,"
	"  data TEXT);"
	"CREATE INDEX events_op ON events(op_id, id);",
	/* 2: the live operations of a cluster, found in one index probe */
	"CREATE INDEX operations_cluster ON operations(cluster, state);",
	/* 3: the MCP tool classes a token is limited to (NULL: no limit) */
	"ALTER TABLE tokens ADD COLUMN tools TEXT;",
	/* 4: live operations in due order, so a claim reads the first due
	 * one instead of sorting every due one (STMT_OP_CLAIM_PICK) */
	"CREATE INDEX operations_live_due ON operations(due)"
	"  WHERE state IN ('pending','running');",
	/* 5: the clusters Slipway owns: made by it ('created', every
	 * resource tagged with id) or adopted by cluster_import
	 * ('imported'); a cluster with no row here is not Slipway's */
	"CREATE TABLE clusters ("
	"  name TEXT PRIMARY KEY,"
	"  id TEXT NOT NULL UNIQUE,"
	"  origin TEXT NOT NULL CHECK (origin IN ('created','imported')),"
	"  created INTEGER NOT NULL);",
	/* 6: hourly prices read from the Price List API, with the
	 * catalogue's publication date; usd_micro NULL: AWS lists none */
	"CREATE TABLE prices ("
	"  service TEXT NOT NULL,"
	"  region TEXT NOT NULL,"
	"  instance_type TEXT NOT NULL,"
	"  usd_micro INTEGER,"
	"  sku TEXT,"
	"  published TEXT,"
	"  fetched INTEGER NOT NULL,"
	"  PRIMARY KEY (service, region, instance_type));",
	/* 7: browser sessions of people signed in through the OpenID
	 * provider (swp_...): no token behind them, so the person, the
	 * scope and the groups are kept with the session */
	"CREATE TABLE person_sessions ("
	"  id TEXT PRIMARY KEY,"
	"  hash BLOB NOT NULL,"
	"  person TEXT NOT NULL,"
	"  person_id TEXT NOT NULL,"
	"  scope TEXT NOT NULL,"
	"  groups TEXT NOT NULL,"
	"  created INTEGER NOT NULL,"
	"  expires INTEGER NOT NULL);",
	/* 8: the usage ledger (lib/ledger.h): seconds of nodes and GPUs per
	 * day, kept as they are sampled, never recomputed; the cursor is
	 * the AWS time each cluster was last sampled at */
	"CREATE TABLE ledger_cursor ("
	"  cluster TEXT PRIMARY KEY,"
	"  sampled INTEGER NOT NULL);"
	"CREATE TABLE ledger ("
	"  day TEXT NOT NULL,"
	"  cluster TEXT NOT NULL,"
	"  instance_group TEXT NOT NULL,"
	"  instance_type TEXT NOT NULL,"
	"  team TEXT NOT NULL,"
	"  job TEXT NOT NULL,"
	"  kind TEXT NOT NULL CHECK (kind IN ('node','gpu','idle')),"
	"  seconds INTEGER NOT NULL,"
	"  usd_us INTEGER,"
	"  PRIMARY KEY (day, cluster, instance_group, instance_type, team,"
	"    job, kind));",
	/* 9: monthly budgets per team or cluster (lib/budget.h), the
	 * thresholds each crossed (once per budget, month and threshold),
	 * and each cluster's burn rate at its last ledger sample (team ''
	 * is the nodes; a team its GPUs' share), micro-dollars an hour */
	"CREATE TABLE budgets ("
	"  scope TEXT NOT NULL CHECK (scope IN ('team','cluster')),"
	"  name TEXT NOT NULL,"
	"  limit_micro INTEGER NOT NULL CHECK (limit_micro > 0),"
	"  thresholds TEXT NOT NULL,"
	"  created INTEGER NOT NULL,"
	"  updated INTEGER NOT NULL,"
	"  PRIMARY KEY (scope, name));"
	"CREATE TABLE budget_alerts ("
	"  id INTEGER PRIMARY KEY AUTOINCREMENT,"
	"  scope TEXT NOT NULL,"
	"  name TEXT NOT NULL,"
	"  month TEXT NOT NULL,"
	"  threshold INTEGER NOT NULL,"
	"  crossed INTEGER NOT NULL,"
	"  spent_micro INTEGER NOT NULL,"
	"  limit_micro INTEGER NOT NULL,"
	"  UNIQUE (scope, name, month, threshold));"
	"CREATE TABLE ledger_burn ("
	"  cluster TEXT NOT NULL,"
	"  team TEXT NOT NULL,"
	"  usd_micro_hour INTEGER NOT NULL,"
	"  sampled INTEGER NOT NULL,"
	"  PRIMARY KEY (cluster, team));"
	/* a budget reads its month of one cluster's or one team's rows */
	"CREATE INDEX ledger_cluster_month ON ledger(cluster, kind, day);"
	"CREATE INDEX ledger_team_month ON ledger(team, kind, day);",
	/* 10: notifications (lib/notify.h).  A subscription sends the
	 * event kinds it names to a webhook, an SNS topic or an EventBridge
	 * bus.  The outbox is written by triggers, so an event and its
	 * deliveries are part of the very statement that ends an operation
	 * or a stage: never one without the other, whoever writes it.  An
	 * event is kept only when some subscription wants it. */
	"CREATE TABLE subscriptions ("
	"  name TEXT PRIMARY KEY,"
	"  target TEXT NOT NULL CHECK (target IN"
	"    ('webhook','sns','eventbridge')),"
	"  address TEXT NOT NULL,"
	"  secret TEXT,"
	"  format TEXT NOT NULL CHECK (format IN ('slipway','slack')),"
	"  kinds TEXT NOT NULL,"
	"  cluster TEXT,"
	"  created_by TEXT NOT NULL,"
	"  created INTEGER NOT NULL);"
	"CREATE TABLE notify_events ("
	"  id INTEGER PRIMARY KEY AUTOINCREMENT,"
	"  uid TEXT NOT NULL UNIQUE,"
	"  kind TEXT NOT NULL,"
	"  op_id TEXT NOT NULL,"
	"  cluster TEXT,"
	"  time INTEGER NOT NULL,"
	"  data TEXT NOT NULL);"
	"CREATE TABLE deliveries ("
	"  event_id INTEGER NOT NULL REFERENCES notify_events(id),"
	"  sub TEXT NOT NULL,"
	"  state TEXT NOT NULL CHECK (state IN ('pending','delivered','dead')),"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  due INTEGER NOT NULL,"
	"  lease_owner TEXT,"
	"  lease_until INTEGER NOT NULL DEFAULT 0,"
	"  last_error TEXT,"
	"  done INTEGER,"
	"  PRIMARY KEY (event_id, sub));"
	"CREATE INDEX deliveries_due ON deliveries(due)"
	"  WHERE state = 'pending';"
	"CREATE TRIGGER notify_op_end AFTER UPDATE OF state ON operations"
	"  WHEN NEW.state IN ('succeeded','failed','cancelled')"
	"  AND OLD.state IS NOT NEW.state BEGIN"
	"  INSERT INTO notify_events (uid, kind, op_id, cluster, time, data)"
	"   SELECT 'ev-' || lower(hex(randomblob(12))),"
	"   'operation.' || NEW.state, NEW.id, NEW.cluster, NEW.updated,"
	"   json_object('operation', NEW.id, 'kind', NEW.kind, 'target',"
	"    NEW.target, 'cluster', NEW.cluster, 'state', NEW.state,"
	"    'error', NEW.error, 'requested_by', NEW.token_name)"
	"   WHERE EXISTS (SELECT 1 FROM subscriptions s WHERE"
	"    instr(s.kinds, ',operation.' || NEW.state || ',') > 0"
	"    AND (s.cluster IS NULL OR s.cluster IS NEW.cluster));"
	"  INSERT INTO deliveries (event_id, sub, state, due)"
	"   SELECT last_insert_rowid(), s.name, 'pending', NEW.updated"
	"   FROM subscriptions s WHERE"
	"    instr(s.kinds, ',operation.' || NEW.state || ',') > 0"
	"    AND (s.cluster IS NULL OR s.cluster IS NEW.cluster);"
	"  END;"
	"CREATE TRIGGER notify_stage_end AFTER UPDATE OF state ON stages"
	"  WHEN NEW.state IN ('succeeded','failed')"
	"  AND OLD.state IS NOT NEW.state BEGIN"
	"  INSERT INTO notify_events (uid, kind, op_id, cluster, time, data)"
	"   SELECT 'ev-' || lower(hex(randomblob(12))),"
	"   'stage.' || NEW.state, o.id, o.cluster, NEW.finished,"
	"   json_object('operation', o.id, 'kind', o.kind, 'target',"
	"    o.target, 'cluster', o.cluster, 'stage', NEW.name, 'seq',"
	"    NEW.seq, 'state', NEW.state, 'error', NEW.error,"
	"    'attempts', NEW.attempts, 'requested_by', o.token_name)"
	"   FROM operations o WHERE o.id = NEW.op_id AND EXISTS (SELECT 1"
	"    FROM subscriptions s WHERE"
	"    instr(s.kinds, ',stage.' || NEW.state || ',') > 0"
	"    AND (s.cluster IS NULL OR s.cluster IS o.cluster));"
	"  INSERT INTO deliveries (event_id, sub, state, due)"
	"   SELECT last_insert_rowid(), s.name, 'pending', NEW.finished"
	"   FROM subscriptions s, operations o WHERE o.id = NEW.op_id AND"
	"    instr(s.kinds, ',stage.' || NEW.state || ',') > 0"
	"    AND (s.cluster IS NULL OR s.cluster IS o.cluster);"
	"  END;"
	"CREATE TRIGGER notify_sub_gone AFTER DELETE ON subscriptions BEGIN"
	"  DELETE FROM deliveries WHERE sub = OLD.name;"
	"  END;",
	/* 11: service accounts: a token's team and role (NULL: a token of
	 * no team, limited by its scope alone) and when it stops working
	 * (NULL: never) */
	"ALTER TABLE tokens ADD COLUMN team TEXT;"
	"ALTER TABLE tokens ADD COLUMN role TEXT CHECK (role IN"
	"  ('viewer','operator','platform-admin'));"
	"ALTER TABLE tokens ADD COLUMN expires INTEGER;",
	/* 12: a budget threshold crossed is a notification event
	 * (budget.threshold), written by a trigger on the crossing's own
	 * row: budget_alerts is written with INSERT OR IGNORE, so the
	 * trigger fires once per budget, month and threshold, in the same
	 * statement as the crossing.  The event has no operation (op_id
	 * ''); its cluster is the budget's for a cluster budget and none
	 * for a team's, so a subscription limited to a cluster gets that
	 * cluster's budget only.  Its time and due are the wall clock (the
	 * ledger's may run ahead); the ledger's time is crossed_at. */
	"ALTER TABLE budget_alerts ADD COLUMN forecast_micro INTEGER;"
	"CREATE TRIGGER notify_budget_cross AFTER INSERT ON budget_alerts"
	"  BEGIN"
	"  INSERT INTO notify_events (uid, kind, op_id, cluster, time, data)"
	"   SELECT 'ev-' || lower(hex(randomblob(12))), 'budget.threshold',"
	"   '', CASE NEW.scope WHEN 'cluster' THEN NEW.name END,"
	"   CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER),"
	"   json_patch(json_object('scope', NEW.scope, 'name', NEW.name,"
	"    'month', NEW.month, 'threshold', NEW.threshold, 'crossed_at',"
	"    strftime('%Y-%m-%dT%H:%M:%SZ', NEW.crossed, 'unixepoch'),"
	"    'spent_usd', json(printf('%d.%06d', NEW.spent_micro / 1000000,"
	"     NEW.spent_micro % 1000000)),"
	"    'limit_usd', json(printf('%d.%06d', NEW.limit_micro / 1000000,"
	"     NEW.limit_micro % 1000000))),"
	/* a forecast not at hand (NULL) leaves the member out */
	"    json_object('forecast_usd', CASE WHEN NEW.forecast_micro >= 0"
	"     THEN json(printf('%d.%06d', NEW.forecast_micro / 1000000,"
	"     NEW.forecast_micro % 1000000)) END))"
	"   WHERE EXISTS (SELECT 1 FROM subscriptions s WHERE"
	"    instr(s.kinds, ',budget.threshold,') > 0 AND (s.cluster IS NULL"
	"    OR (NEW.scope = 'cluster' AND s.cluster = NEW.name)));"
	"  INSERT INTO deliveries (event_id, sub, state, due)"
	"   SELECT last_insert_rowid(), s.name, 'pending',"
	"   CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
	"   FROM subscriptions s WHERE"
	"    instr(s.kinds, ',budget.threshold,') > 0 AND (s.cluster IS NULL"
	"    OR (NEW.scope = 'cluster' AND s.cluster = NEW.name));"
	"  END;",
	/* 13: what the poller watches (poller/watch.c): the last-seen
	 * state of each job, endpoint and node of a cluster, and the
	 * cursor of its HyperPod cluster events.  A first sight is an
	 * INSERT (a baseline, no event); a change is an UPDATE naming the
	 * event it makes (event, data), and notify_watch writes that event
	 * and its deliveries in the same statement, so a change is
	 * reported once or, when the poller dies first, not recorded and
	 * seen again.  A subscription may be limited to a team: it gets
	 * the events that carry its team (a job's or an endpoint's
	 * namespace hyperpod-ns-<team>, its team budget's crossings), so
	 * operation and stage results, which belong to no team, go to
	 * subscriptions of no team only. */
	"ALTER TABLE subscriptions ADD COLUMN team TEXT;"
	"CREATE TABLE watch_state ("
	"  cluster TEXT NOT NULL,"
	"  kind TEXT NOT NULL,"
	"  key TEXT NOT NULL,"
	"  state TEXT NOT NULL,"
	"  team TEXT,"
	"  seen INTEGER NOT NULL,"
	"  event TEXT,"
	"  data TEXT,"
	"  PRIMARY KEY (cluster, kind, key));"
	"CREATE TRIGGER notify_watch AFTER UPDATE OF state ON watch_state"
	"  WHEN NEW.event IS NOT NULL AND OLD.state IS NOT NEW.state BEGIN"
	"  INSERT INTO notify_events (uid, kind, op_id, cluster, time, data)"
	"   SELECT 'ev-' || lower(hex(randomblob(12))), NEW.event, '',"
	"   NEW.cluster, NEW.seen, NEW.data"
	"   WHERE EXISTS (SELECT 1 FROM subscriptions s WHERE"
	"    instr(s.kinds, ',' || NEW.event || ',') > 0"
	"    AND (s.cluster IS NULL OR s.cluster IS NEW.cluster)"
	"    AND (s.team IS NULL OR s.team IS NEW.team));"
	"  INSERT INTO deliveries (event_id, sub, state, due)"
	"   SELECT last_insert_rowid(), s.name, 'pending', NEW.seen"
	"   FROM subscriptions s WHERE"
	"    instr(s.kinds, ',' || NEW.event || ',') > 0"
	"    AND (s.cluster IS NULL OR s.cluster IS NEW.cluster)"
	"    AND (s.team IS NULL OR s.team IS NEW.team);"
	"  END;"
	"DROP TRIGGER notify_op_end;"
	"CREATE TRIGGER notify_op_end AFTER UPDATE OF state ON operations"
	"  WHEN NEW.state IN ('succeeded','failed','cancelled')"
	"  AND OLD.state IS NOT NEW.state BEGIN"
	"  INSERT INTO notify_events (uid, kind, op_id, cluster, time, data)"
	"   SELECT 'ev-' || lower(hex(randomblob(12))),"
	"   'operation.' || NEW.state, NEW.id, NEW.cluster, NEW.updated,"
	"   json_object('operation', NEW.id, 'kind', NEW.kind, 'target',"
	"    NEW.target, 'cluster', NEW.cluster, 'state', NEW.state,"
	"    'error', NEW.error, 'requested_by', NEW.token_name)"
	"   WHERE EXISTS (SELECT 1 FROM subscriptions s WHERE"
	"    instr(s.kinds, ',operation.' || NEW.state || ',') > 0"
	"    AND (s.cluster IS NULL OR s.cluster IS NEW.cluster)"
	"    AND s.team IS NULL);"
	"  INSERT INTO deliveries (event_id, sub, state, due)"
	"   SELECT last_insert_rowid(), s.name, 'pending', NEW.updated"
	"   FROM subscriptions s WHERE"
	"    instr(s.kinds, ',operation.' || NEW.state || ',') > 0"
	"    AND (s.cluster IS NULL OR s.cluster IS NEW.cluster)"
	"    AND s.team IS NULL;"
	"  END;"
	"DROP TRIGGER notify_stage_end;"
	"CREATE TRIGGER notify_stage_end AFTER UPDATE OF state ON stages"
	"  WHEN NEW.state IN ('succeeded','failed')"
	"  AND OLD.state IS NOT NEW.state BEGIN"
	"  INSERT INTO notify_events (uid, kind, op_id, cluster, time, data)"
	"   SELECT 'ev-' || lower(hex(randomblob(12))),"
	"   'stage.' || NEW.state, o.id, o.cluster, NEW.finished,"
	"   json_object('operation', o.id, 'kind', o.kind, 'target',"
	"    o.target, 'cluster', o.cluster, 'stage', NEW.name, 'seq',"
	"    NEW.seq, 'state', NEW.state, 'error', NEW.error,"
	"    'attempts', NEW.attempts, 'requested_by', o.token_name)"
	"   FROM operations o WHERE o.id = NEW.op_id AND EXISTS (SELECT 1"
	"    FROM subscriptions s WHERE"
	"    instr(s.kinds, ',stage.' || NEW.state || ',') > 0"
	"    AND (s.cluster IS NULL OR s.cluster IS o.cluster)"
	"    AND s.team IS NULL);"
	"  INSERT INTO deliveries (event_id, sub, state, due)"
	"   SELECT last_insert_rowid(), s.name, 'pending', NEW.finished"
	"   FROM subscriptions s, operations o WHERE o.id = NEW.op_id AND"
	"    instr(s.kinds, ',stage.' || NEW.state || ',') > 0"
	"    AND (s.cluster IS NULL OR s.cluster IS o.cluster)"
	"    AND s.team IS NULL;"
	"  END;"
	"DROP TRIGGER notify_budget_cross;"
	"CREATE TRIGGER notify_budget_cross AFTER INSERT ON budget_alerts"
	"  BEGIN"
	"  INSERT INTO notify_events (uid, kind, op_id, cluster, time, data)"
	"   SELECT 'ev-' || lower(hex(randomblob(12))), 'budget.threshold',"
	"   '', CASE NEW.scope WHEN 'cluster' THEN NEW.name END,"
	"   CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER),"
	"   json_patch(json_object('scope', NEW.scope, 'name', NEW.name,"
	"    'month', NEW.month, 'threshold', NEW.threshold, 'crossed_at',"
	"    strftime('%Y-%m-%dT%H:%M:%SZ', NEW.crossed, 'unixepoch'),"
	"    'spent_usd', json(printf('%d.%06d', NEW.spent_micro / 1000000,"
	"     NEW.spent_micro % 1000000)),"
	"    'limit_usd', json(printf('%d.%06d', NEW.limit_micro / 1000000,"
	"     NEW.limit_micro % 1000000))),"
	"    json_object('forecast_usd', CASE WHEN NEW.forecast_micro >= 0"
	"     THEN json(printf('%d.%06d', NEW.forecast_micro / 1000000,"
	"     NEW.forecast_micro % 1000000)) END))"
	"   WHERE EXISTS (SELECT 1 FROM subscriptions s WHERE"
	"    instr(s.kinds, ',budget.threshold,') > 0 AND (s.cluster IS NULL"
	"    OR (NEW.scope = 'cluster' AND s.cluster = NEW.name))"
	"    AND (s.team IS NULL OR (NEW.scope = 'team'"
	"    AND s.team = NEW.name)));"
	"  INSERT INTO deliveries (event_id, sub, state, due)"
	"   SELECT last_insert_rowid(), s.name, 'pending',"
	"   CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
	"   FROM subscriptions s WHERE"
	"    instr(s.kinds, ',budget.threshold,') > 0 AND (s.cluster IS NULL"
	"    OR (NEW.scope = 'cluster' AND s.cluster = NEW.name))"
	"    AND (s.team IS NULL OR (NEW.scope = 'team'"
	"    AND s.team = NEW.name));"
	"  END;",
	/* The fleet document applied last (fleet_apply), one row: what
	 * fleet_drift plans against. */
	"CREATE TABLE fleet_applied ("
	" id INTEGER PRIMARY KEY CHECK (id = 1),"
	" doc TEXT NOT NULL,"
	" applied_by TEXT NOT NULL,"
	" applied_ms INTEGER NOT NULL);",
	/* N: the account and region a cluster lives in; NULL: Slipway's
	 * own (the account of its credentials, the configured region) */
	"ALTER TABLE clusters ADD COLUMN account TEXT;"
	"ALTER TABLE clusters ADD COLUMN region TEXT;",
	/* N: the drift the poller found between the fleet document applied
	 * last and live state, each difference with when Slipway first saw
	 * it (first_seen_ms) and last saw it (seen_ms); live and desired
	 * are JSON text */
	"CREATE TABLE fleet_drift ("
	" cluster TEXT NOT NULL,"
	" target TEXT NOT NULL,"
	" field TEXT NOT NULL,"
	" live TEXT NOT NULL,"
	" desired TEXT NOT NULL,"
	" first_seen_ms INTEGER NOT NULL,"
	" seen_ms INTEGER NOT NULL,"
	" PRIMARY KEY (cluster, target, field));",
	/* The fencing token of an operation's lease: each claim adds one,
	 * and a stage's writes are accepted only with the current one
	 * (STMT_OP_FENCE_CHECK), so a poller that lost its lease (paused,
	 * partitioned) cannot write after another claimed the operation. */
	"ALTER TABLE operations ADD COLUMN fence INTEGER NOT NULL DEFAULT 0;",
	/* N: what a commit changed, told to whoever waits for it (a
	 * stream's viewers, operation_wait): PostgreSQL's triggers NOTIFY
	 * (pg_migrations); SQLite's commits are watched as the WAL file's
	 * writes and need nothing here */
	"SELECT 1;",
	/* A periodic task every poller of every replica could run (the
	 * watch of one cluster, its drift): due is when it may next be
	 * taken, by the database's clock, so one poller takes each turn
	 * (sw_turn_take) */
	"CREATE TABLE turns ("
	" name TEXT PRIMARY KEY,"
	" due INTEGER NOT NULL);",
	/* N: the cluster's Kubernetes API server as EKS DescribeCluster
	 * last gave it, its endpoint and CA (PEM), so a poller of any
	 * replica reaches it without asking EKS again (cloud/kube.c);
	 * NULL when not known or forgotten after nothing could be read
	 * there */
	"ALTER TABLE clusters ADD COLUMN api_endpoint TEXT;"
	"ALTER TABLE clusters ADD COLUMN api_ca TEXT;",
	/* N: an AWS answer that is a fact of an account's region (its
	 * zones, the instance types it offers and what each type is), kept
	 * until until (the database's clock, ms) for every worker and
	 * replica (sw_fact_get); key names the account, region, operation
	 * and input */
	"CREATE TABLE aws_facts ("
	" key TEXT PRIMARY KEY,"
	" answer TEXT NOT NULL,"
	" until INTEGER NOT NULL);",
};

#define NMIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

/* The database's clock, milliseconds since the epoch, as an expression
 * of each engine's SQL (see sw_db_clock_ms). */
#define SQLITE_NOW "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
#define PG_NOW "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

static const char *const stmt_sql[STMT__MAX] = {
	/* STMT_TOKEN_INSERT */
	"INSERT INTO tokens (id, name, scope, hash, created)"
	" VALUES (?1, ?2, ?3, ?4, ?5)",
	/* STMT_TOKEN_BY_ID: with the database's now, what expiry is
	 * measured by */
	"SELECT id, name, scope, hash, revoked, tools, team, role, expires, " SQLITE_NOW
	" FROM tokens WHERE id = ?1",
	/* STMT_TOKEN_LIST: every token, or team ?1's */
	"SELECT id, name, scope, created, last_used, revoked, team, role,"
	" expires FROM tokens WHERE ?1 IS NULL OR team = ?1"
	" ORDER BY created, name",
	/* STMT_TOKEN_REVOKE: in team ?3 when it is not NULL */
	"UPDATE tokens SET revoked = ?2 WHERE name = ?1 AND revoked IS NULL"
	" AND (?3 IS NULL OR team = ?3)",
	/* STMT_TOKEN_TOUCH: at most once per ?3 ms (auth.c) */
	"UPDATE tokens SET last_used = ?2 WHERE id = ?1"
	" AND (last_used IS NULL OR last_used <= ?2 - ?3)",
	/* STMT_TOKEN_SET_TOOLS */
	"UPDATE tokens SET tools = ?2 WHERE name = ?1 AND revoked IS NULL",
	/* STMT_TOKEN_SET_TEAM */
	"UPDATE tokens SET team = ?2, role = ?3, expires = ?4"
	" WHERE name = ?1 AND revoked IS NULL",
	/* STMT_SESSION_INSERT */
	"INSERT INTO sessions (id, hash, token_id, created, expires)"
	" VALUES (?1, ?2, ?3, ?4, ?5)",
	/* STMT_SESSION_BY_ID: with the database's now */
	"SELECT s.hash, s.expires, t.id, t.name, t.scope, t.revoked, t.team,"
	" t.role, t.expires, " SQLITE_NOW
	" FROM sessions s JOIN tokens t ON t.id = s.token_id WHERE s.id = ?1",
	/* STMT_SESSION_DELETE */
	"DELETE FROM sessions WHERE id = ?1",
	/* STMT_SESSION_PURGE */
	"DELETE FROM sessions WHERE expires < ?1",
	/* STMT_PSESSION_INSERT */
	"INSERT INTO person_sessions (id, hash, person, person_id, scope,"
	" groups, created, expires) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	/* STMT_PSESSION_BY_ID: with the database's now */
	"SELECT hash, expires, person_id, person, scope, groups, " SQLITE_NOW
	" FROM person_sessions WHERE id = ?1",
	/* STMT_PSESSION_DELETE */
	"DELETE FROM person_sessions WHERE id = ?1",
	/* STMT_PSESSION_PURGE */
	"DELETE FROM person_sessions WHERE expires < ?1",
	/* STMT_OP_INSERT */
	"INSERT INTO operations (id, kind, target, cluster, params, state,"
	" idem_key, idem_hash, token_name, created, updated, due)"
	" VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6, ?7, ?8, ?9, ?9, ?9)",
	/* STMT_OP_BY_ID */
	"SELECT id, kind, target, cluster, params, state, token_name, created,"
	" updated, result, error, cancel_requested, idem_key, due"
	" FROM operations WHERE id = ?1",
	/* STMT_OP_BY_IDEM */
	"SELECT id, idem_hash FROM operations"
	" WHERE token_name = ?1 AND idem_key = ?2",
	/* STMT_OP_LIST */
	"SELECT id, kind, target, cluster, params, state, token_name, created,"
	" updated, result, error, cancel_requested, idem_key, due"
	" FROM operations"
	" WHERE (?1 IS NULL OR kind = ?1) AND (?2 IS NULL OR state = ?2)"
	" AND (?3 IS NULL OR cluster = ?3) AND (?4 IS NULL OR token_name = ?4)"
	" AND (?5 IS NULL OR created < ?5 OR (created = ?5 AND id < ?6))"
	" ORDER BY created DESC, id DESC LIMIT ?7",
	/* STMT_OP_CLAIM_PICK */
	"SELECT id FROM operations WHERE state IN ('pending','running')"
	" AND due <= ?1 AND lease_until <= ?1 ORDER BY due LIMIT 1",
	/* STMT_OP_CLAIM_TAKE */
	"UPDATE operations SET lease_owner = ?2, lease_until = ?3,"
	" state = 'running', updated = ?4, fence = fence + 1"
	" WHERE id = ?1 AND lease_until <= ?4",
	/* STMT_OP_SET_STATE */
	"UPDATE operations SET state = ?2, error = ?3, updated = ?4"
	" WHERE id = ?1",
	/* STMT_OP_SET_DUE */
	"UPDATE operations SET due = ?2, updated = ?3 WHERE id = ?1",
	/* STMT_OP_RELEASE */
	"UPDATE operations SET lease_owner = NULL, lease_until = 0"
	" WHERE id = ?1 AND lease_owner = ?2",
	/* STMT_OP_CANCEL_REQ */
	"UPDATE operations SET cancel_requested = 1, updated = ?2"
	" WHERE id = ?1",
	/* STMT_OP_SET_RESULT */
	"UPDATE operations SET result = ?2, updated = ?3 WHERE id = ?1",
	/* STMT_OP_UPDATED */
	"SELECT updated, state FROM operations WHERE id = ?1",
	/* STMT_OP_OWNERS: of live leases, owners ending in ?1 ("": all) */
	"SELECT DISTINCT lease_owner FROM operations"
	" WHERE lease_owner LIKE '%' || CAST(?1 AS TEXT)"
	" AND state IN ('pending','running')",
	/* STMT_OP_RELEASE_OWNER */
	"UPDATE operations SET lease_owner = NULL, lease_until = 0"
	" WHERE lease_owner = ?1",
	/* STMT_OP_LIVE_ON_CLUSTER: ?1 cluster, or that of operation ?2 */
	"SELECT id FROM operations WHERE cluster = COALESCE(?1,"
	" (SELECT cluster FROM operations WHERE id = ?2))"
	" AND state IN ('pending','running') AND id IS NOT ?2"
	" ORDER BY created LIMIT 1",
	/* STMT_OP_REQUEUE: a retry starts afresh, cancel request included */
	"UPDATE operations SET state = 'pending', error = NULL,"
	" cancel_requested = 0, due = 0, updated = ?2 WHERE id = ?1",
	/* STMT_STAGE_INSERT */
	"INSERT INTO stages (op_id, seq, name, state) VALUES (?1, ?2, ?3,"
	" 'pending')",
	/* STMT_STAGE_LIST */
	"SELECT seq, name, state, attempts, started, finished, ext, error"
	" FROM stages WHERE op_id = ?1 ORDER BY seq",
	/* STMT_STAGE_SET_STATE */
	"UPDATE stages SET state = ?3, error = ?4,"
	" attempts = attempts + (?3 = 'running'),"
	" started = CASE WHEN ?3 = 'running' THEN ?5 ELSE started END,"
	" finished = CASE WHEN ?3 IN ('succeeded','failed','cancelled',"
	"  'skipped') THEN ?5 ELSE NULL END"
	" WHERE op_id = ?1 AND seq = ?2",
	/* STMT_STAGE_SET_EXT */
	"UPDATE stages SET ext = ?3 WHERE op_id = ?1 AND seq = ?2",
	/* STMT_STAGE_RESET_FROM */
	"UPDATE stages SET state = 'pending', error = NULL, finished = NULL"
	" WHERE op_id = ?1 AND state IN ('failed','cancelled')",
	/* STMT_EVENT_INSERT */
	"INSERT INTO events (op_id, time, stage, level, message, data)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	/* STMT_EVENT_LIST */
	"SELECT id, time, stage, level, message, data FROM events"
	" WHERE op_id = ?1 AND id > ?2 ORDER BY id LIMIT ?3",
	/* STMT_METRIC_OPS */
	"SELECT kind, state, count(*) FROM operations GROUP BY kind, state",
	/* STMT_METRIC_STAGES: ended stages and how long each ran (ms) */
	"SELECT o.kind, s.name, s.finished - s.started FROM stages s"
	" JOIN operations o ON o.id = s.op_id WHERE s.started IS NOT NULL"
	" AND s.finished IS NOT NULL AND s.state = 'succeeded'",
	/* STMT_METRIC_DUE: the oldest due time of a live, unleased op */
	"SELECT min(due) FROM operations WHERE state IN"
	" ('pending','running') AND due <= ?1 AND lease_until < ?1",
	/* STMT_CLUSTER_INSERT: a name already recorded keeps its row */
	"INSERT OR IGNORE INTO clusters (name, id, origin, created)"
	" VALUES (?1, ?2, ?3, ?4)",
	/* STMT_CLUSTER_GET */
	"SELECT id, origin, account, region FROM clusters WHERE name = ?1",
	/* STMT_CLUSTER_FORGET: only the row of that id */
	"DELETE FROM clusters WHERE name = ?1 AND id = ?2",
	/* STMT_PRICE_GET */
	"SELECT usd_micro, sku, published, fetched FROM prices"
	" WHERE service = ?1 AND region = ?2 AND instance_type = ?3",
	/* STMT_PRICE_PUT */
	"INSERT OR REPLACE INTO prices (service, region, instance_type,"
	" usd_micro, sku, published, fetched)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	/* STMT_CLUSTER_NAMES */
	"SELECT name FROM clusters ORDER BY name",
	/* STMT_LEDGER_CURSOR */
	"SELECT sampled FROM ledger_cursor WHERE cluster = ?1",
	/* STMT_LEDGER_MOVE: from ?2 (NULL: never sampled) to ?3, only when
	 * no other poller moved it first (changes() is 1) */
	"INSERT INTO ledger_cursor (cluster, sampled) VALUES (?1, ?3)"
	" ON CONFLICT (cluster) DO UPDATE SET sampled = ?3"
	" WHERE sampled = ?2",
	/* STMT_LEDGER_ADD: usd_us is micro-dollar-seconds; unknown (NULL)
	 * stays unknown */
	"INSERT INTO ledger (day, cluster, instance_group, instance_type,"
	" team, job, kind, seconds, usd_us)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
	" ON CONFLICT (day, cluster, instance_group, instance_type, team,"
	" job, kind) DO UPDATE SET seconds = seconds + excluded.seconds,"
	" usd_us = usd_us + excluded.usd_us",
	/* STMT_LEDGER_READ */
	"SELECT day, cluster, instance_group, instance_type, team, job, kind,"
	" seconds, usd_us FROM ledger WHERE day >= ?1 AND day <= ?2"
	" AND (?3 IS NULL OR cluster = ?3) AND (?4 IS NULL OR team = ?4)"
	" ORDER BY day, cluster, instance_group, team, job, kind",
	/* STMT_LEDGER_NOW: the ledger's clock, the newest sample's AWS time */
	"SELECT max(sampled) FROM ledger_cursor",
	/* STMT_BURN_CLEAR */
	"DELETE FROM ledger_burn WHERE cluster = ?1",
	/* STMT_BURN_ADD: ?3 micro-dollars an hour, summed per team */
	"INSERT INTO ledger_burn (cluster, team, usd_micro_hour, sampled)"
	" VALUES (?1, ?2, ?3, ?4) ON CONFLICT (cluster, team) DO UPDATE"
	" SET usd_micro_hour = usd_micro_hour + excluded.usd_micro_hour,"
	" sampled = excluded.sampled",
	/* STMT_BUDGET_PUT: created is kept from the first put */
	"INSERT INTO budgets (scope, name, limit_micro, thresholds, created,"
	" updated) VALUES (?1, ?2, ?3, ?4, ?5, ?5)"
	" ON CONFLICT (scope, name) DO UPDATE SET"
	" limit_micro = excluded.limit_micro,"
	" thresholds = excluded.thresholds, updated = excluded.updated",
	/* STMT_BUDGET_GET */
	"SELECT scope, name, limit_micro, thresholds, created, updated"
	" FROM budgets WHERE scope = ?1 AND name = ?2",
	/* STMT_BUDGET_LIST */
	"SELECT scope, name, limit_micro, thresholds, created, updated"
	" FROM budgets WHERE (?1 IS NULL OR scope = ?1) ORDER BY scope, name",
	/* STMT_BUDGET_DELETE */
	"DELETE FROM budgets WHERE scope = ?1 AND name = ?2",
	/* STMT_BUDGET_SPENT_CLUSTER: the micro-dollar-seconds of cluster
	 * ?3's nodes in days ?1 <= day < ?2, and the rows with no price */
	"SELECT coalesce(sum(usd_us), 0), count(*) - count(usd_us) FROM ledger"
	" WHERE cluster = ?3 AND kind = 'node' AND day >= ?1 AND day < ?2",
	/* STMT_BUDGET_SPENT_TEAM: the same of team ?3's GPUs, every cluster */
	"SELECT coalesce(sum(usd_us), 0), count(*) - count(usd_us) FROM ledger"
	" WHERE team = ?3 AND kind = 'gpu' AND day >= ?1 AND day < ?2",
	/* STMT_BUDGET_BURN: the burn rate (micro-dollars an hour) of the
	 * clusters still owned, and what it adds from each one's sample
	 * (not before ?3, the month's start) to ?4, the month's end, in
	 * micro-dollar-seconds */
	"SELECT coalesce(sum(b.usd_micro_hour), 0),"
	" coalesce(sum(b.usd_micro_hour * max(0, ?4 - max(b.sampled, ?3))), 0)"
	" FROM ledger_burn b JOIN clusters c ON c.name = b.cluster"
	" WHERE CASE ?1 WHEN 'cluster' THEN b.cluster = ?2 AND b.team = ''"
	" ELSE b.team = ?2 END",
	/* STMT_BUDGET_CROSS: changes() is 1 only the first time; only
	 * then does notify_budget_cross write the event */
	"INSERT OR IGNORE INTO budget_alerts (scope, name, month, threshold,"
	" crossed, spent_micro, limit_micro, forecast_micro)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	/* STMT_BUDGET_ALERTS: of a budget and month when given, after id ?4 */
	"SELECT id, scope, name, month, threshold, crossed, spent_micro,"
	" limit_micro FROM budget_alerts WHERE (?1 IS NULL OR scope = ?1)"
	" AND (?2 IS NULL OR name = ?2) AND (?3 IS NULL OR month = ?3)"
	" AND id > ?4 ORDER BY id LIMIT ?5",
	/* STMT_BUDGET_ALERTS_FORGET */
	"DELETE FROM budget_alerts WHERE scope = ?1 AND name = ?2",
	/* STMT_SUB_INSERT */
	"INSERT INTO subscriptions (name, target, address, secret, format,"
	" kinds, cluster, created_by, created, team)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	/* STMT_SUB_LIST: ?1 one name or NULL for all */
	"SELECT s.name, s.target, s.address, s.secret IS NOT NULL, s.format,"
	" s.kinds, s.cluster, s.created_by, s.created,"
	" (SELECT count(*) FROM deliveries d WHERE d.sub = s.name"
	"  AND d.state = 'pending'),"
	" (SELECT count(*) FROM deliveries d WHERE d.sub = s.name"
	"  AND d.state = 'delivered'),"
	" (SELECT count(*) FROM deliveries d WHERE d.sub = s.name"
	"  AND d.state = 'dead'), s.team"
	" FROM subscriptions s WHERE ?1 IS NULL OR s.name = ?1"
	" ORDER BY s.name",
	/* STMT_SUB_DELETE: its deliveries go with it (notify_sub_gone) */
	"DELETE FROM subscriptions WHERE name = ?1",
	/* STMT_DELIVERY_DUE */
	"SELECT event_id, sub FROM deliveries WHERE state = 'pending'"
	" AND due <= ?1 AND lease_until <= ?1 ORDER BY due LIMIT ?2",
	/* STMT_DELIVERY_TAKE: one attempt begins (changes() is 1) */
	"UPDATE deliveries SET lease_owner = ?3, lease_until = ?4,"
	" attempts = attempts + 1 WHERE event_id = ?1 AND sub = ?2"
	" AND state = 'pending' AND lease_until <= ?5",
	/* STMT_DELIVERY_READ */
	"SELECT e.uid, e.kind, e.op_id, e.cluster, e.time, e.data, s.target,"
	" s.address, s.secret, s.format, d.attempts FROM deliveries d"
	" JOIN notify_events e ON e.id = d.event_id"
	" JOIN subscriptions s ON s.name = d.sub"
	" WHERE d.event_id = ?1 AND d.sub = ?2",
	/* STMT_DELIVERY_DONE: only by the attempt that holds the lease */
	"UPDATE deliveries SET state = 'delivered', done = ?4,"
	" lease_owner = NULL, lease_until = 0, last_error = NULL"
	" WHERE event_id = ?1 AND sub = ?2 AND lease_owner = ?3",
	/* STMT_DELIVERY_RETRY: again at ?4, or dead after ?6 attempts */
	"UPDATE deliveries SET"
	" state = CASE WHEN attempts >= ?6 THEN 'dead' ELSE 'pending' END,"
	" done = CASE WHEN attempts >= ?6 THEN ?7 ELSE NULL END,"
	" due = ?4, last_error = ?5, lease_owner = NULL, lease_until = 0"
	" WHERE event_id = ?1 AND sub = ?2 AND lease_owner = ?3",
	/* STMT_DELIVERY_LIST: newest first; a delivery's rowid is its
	 * place, so paging by it (?3) skips none */
	"SELECT e.uid, e.kind, e.op_id, e.cluster, e.time, d.sub, d.state,"
	" d.attempts, d.due, d.last_error, d.done, d.rowid,"
	" CASE e.kind WHEN 'budget.threshold' THEN"
	"  json_extract(e.data, '$.scope') || '/' ||"
	"  json_extract(e.data, '$.name') END,"
	" json_extract(e.data, '$.subject')"
	" FROM deliveries d JOIN notify_events e ON e.id = d.event_id"
	" WHERE (?1 IS NULL OR d.state = ?1) AND (?2 IS NULL OR d.sub = ?2)"
	" AND (?3 IS NULL OR d.rowid < ?3)"
	" ORDER BY d.rowid DESC LIMIT ?4",
	/* STMT_DELIVERY_OWNERS: owners ending in ?1 ("": all) */
	"SELECT DISTINCT lease_owner FROM deliveries"
	" WHERE lease_owner LIKE '%' || CAST(?1 AS TEXT)",
	/* STMT_DELIVERY_RELEASE_OWNER */
	"UPDATE deliveries SET lease_owner = NULL, lease_until = 0"
	" WHERE lease_owner = ?1",
	/* STMT_WATCH_SEEN: a cluster's last-seen states */
	"SELECT kind, key, state FROM watch_state WHERE cluster = ?1",
	/* STMT_WATCH_PUT: a first sight (no event), or a change that makes
	 * event ?7 (NULL: none) through notify_watch */
	"INSERT INTO watch_state (cluster, kind, key, state, team, seen,"
	" event, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL, NULL)"
	" ON CONFLICT (cluster, kind, key) DO UPDATE SET state = ?4,"
	" team = ?5, seen = ?6, event = ?7, data = ?8",
	/* STMT_WATCH_DROP: an object no longer there */
	"DELETE FROM watch_state WHERE cluster = ?1 AND kind = ?2"
	" AND key = ?3",
	/* STMT_NOTIFY_EVENT_ADD: an event no trigger writes (kind ?2,
	 * cluster ?3 or NULL), kept only when some subscription wants it;
	 * a uid ?1 already there is left alone, so an event keyed by what
	 * it is about is written once (changes() is 1 only then) */
	"INSERT OR IGNORE INTO notify_events (uid, kind, op_id, cluster, time,"
	" data) SELECT ?1, ?2, '', ?3, ?4, ?5 WHERE EXISTS (SELECT 1"
	" FROM subscriptions s WHERE instr(s.kinds, ',' || ?2 || ',') > 0"
	" AND (s.cluster IS NULL OR s.cluster IS ?3) AND s.team IS NULL)",
	/* STMT_NOTIFY_DELIVERIES_ADD: that event ?1 to each subscription
	 * that wants kind ?3 of cluster ?4, due at ?2 */
	"INSERT INTO deliveries (event_id, sub, state, due)"
	" SELECT ?1, s.name, 'pending', ?2 FROM subscriptions s"
	" WHERE instr(s.kinds, ',' || ?3 || ',') > 0"
	" AND (s.cluster IS NULL OR s.cluster IS ?4) AND s.team IS NULL",
	/* STMT_NOTIFY_EVENT_SEEN */
	"SELECT 1 FROM notify_events WHERE uid = ?1",
	/* STMT_FLEET_PUT */
	"INSERT INTO fleet_applied (id, doc, applied_by, applied_ms)"
	" VALUES (1, ?1, ?2, ?3) ON CONFLICT (id) DO UPDATE SET"
	" doc = excluded.doc, applied_by = excluded.applied_by,"
	" applied_ms = excluded.applied_ms",
	/* STMT_FLEET_GET */
	"SELECT doc, applied_by, applied_ms FROM fleet_applied WHERE id = 1",
	/* STMT_CLUSTER_PLACE: where the cluster of that id lives */
	"UPDATE clusters SET account = ?3, region = ?4"
	" WHERE name = ?1 AND id = ?2",
	/* STMT_CLUSTER_PLACES: every other account and region holding one */
	"SELECT DISTINCT coalesce(account, ''), coalesce(region, '')"
	" FROM clusters WHERE account IS NOT NULL OR region IS NOT NULL"
	" ORDER BY 1, 2",
	/* STMT_DRIFT_PUT: a difference seen at ?6; first seen then unless
	 * the same one was seen before */
	"INSERT INTO fleet_drift (cluster, target, field, live, desired,"
	" first_seen_ms, seen_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)"
	" ON CONFLICT (cluster, target, field) DO UPDATE SET"
	" first_seen_ms = CASE WHEN fleet_drift.live = excluded.live AND"
	" fleet_drift.desired = excluded.desired THEN fleet_drift.first_seen_ms"
	" ELSE excluded.first_seen_ms END, live = excluded.live,"
	" desired = excluded.desired, seen_ms = excluded.seen_ms",
	/* STMT_DRIFT_SWEEP: the differences of cluster ?1 not seen at ?2 */
	"DELETE FROM fleet_drift WHERE cluster = ?1 AND seen_ms < ?2",
	/* STMT_DRIFT_LIST: of cluster ?1, or of all when NULL */
	"SELECT cluster, target, field, live, desired, first_seen_ms, seen_ms"
	" FROM fleet_drift WHERE cluster = coalesce(?1, cluster)"
	" ORDER BY cluster, target, field",
	/* STMT_OP_FENCE_CHECK: the lease (owner ?2, token ?3) still holds
	 * operation ?1; renewed to ?4 (the heartbeat).  No row changed: the
	 * lease moved, and the caller's transaction writes nothing. */
	"UPDATE operations SET lease_until = ?4"
	" WHERE id = ?1 AND lease_owner = ?2 AND fence = ?3",
	/* STMT_OP_FENCE_GET: the token the last claim gave */
	"SELECT fence FROM operations WHERE id = ?1",
	/* STMT_OP_FENCE_DUE: give the lease (owner ?2, token ?3) up, the
	 * operation next due at ?4 */
	"UPDATE operations SET due = ?4, updated = ?5, lease_owner = NULL,"
	" lease_until = 0 WHERE id = ?1 AND lease_owner = ?2 AND fence = ?3",
	/* STMT_TURN_TAKE: ?2 the database's now, ?3 the period; changes()
	 * is 1 when this caller took the turn */
	"INSERT INTO turns (name, due) VALUES (?1, ?2 + ?3)"
	" ON CONFLICT (name) DO UPDATE SET due = ?2 + ?3"
	" WHERE turns.due <= ?2",
	/* STMT_CLUSTER_ACCESS_GET */
	"SELECT api_endpoint, api_ca FROM clusters"
	" WHERE name = ?1 AND api_endpoint IS NOT NULL AND api_ca IS NOT NULL",
	/* STMT_CLUSTER_ACCESS_SET: ?2 and ?3 NULL forget them */
	"UPDATE clusters SET api_endpoint = ?2, api_ca = ?3 WHERE name = ?1",
	/* STMT_FACT_GET: fact ?1 while it holds at ?2 */
	"SELECT answer FROM aws_facts WHERE key = ?1 AND until > ?2",
	/* STMT_FACT_PUT: fact ?1 is ?2 until ?3 */
	"INSERT INTO aws_facts (key, answer, until) VALUES (?1, ?2, ?3)"
	" ON CONFLICT (key) DO UPDATE SET answer = ?2, until = ?3",
	/* STMT_CLUSTER_UNCLAIM: the row of that id, unless a live
	 * operation on the cluster holds it */
	"DELETE FROM clusters WHERE name = ?1 AND id = ?2 AND NOT EXISTS"
	" (SELECT 1 FROM operations WHERE cluster = ?1"
	" AND state IN ('pending','running'))",
	/* STMT_DB_CLOCK: the database's clock, ms (sw_db_clock_ms) */
	"SELECT " SQLITE_NOW,
	/* STMT_CLUSTER_STATES: cluster ?1, or every one (NULL), with its
	 * account and region, whether its create is live or about to be
	 * (the record made, no create enqueued yet), and what the live
	 * create's hyperpod stage recorded of HyperPod's CreateCluster
	 * (NULL: not answered yet) */
	"SELECT c.name, c.account, c.region,"
	" EXISTS (SELECT 1 FROM operations o WHERE o.cluster = c.name"
	"  AND o.state IN ('pending','running')"
	"  AND o.kind = 'cluster.create')"
	" OR (c.origin = 'created' AND NOT EXISTS (SELECT 1 FROM operations x"
	"  WHERE x.cluster = c.name AND x.kind = 'cluster.create')),"
	" (SELECT json_extract(s.ext, '$.create_requested')"
	"  FROM operations o JOIN stages s ON s.op_id = o.id"
	"  AND s.name = 'hyperpod' WHERE o.cluster = c.name"
	"  AND o.state IN ('pending','running')"
	"  AND o.kind = 'cluster.create' LIMIT 1)"
	" FROM clusters c WHERE ?1 IS NULL OR c.name = ?1 ORDER BY c.name",
	/* STMT_TURNS_WAITING: the turns named ?1... not due at ?2 */
	"SELECT name FROM turns WHERE substr(name, 1, length(?1)) = ?1"
	" AND due > ?2",
};

/*
 * What differs between the engines besides a statement's text: how the
 * connection is set up, where the schema version is kept, and the
 * migrations' text where its dialect differs.
 */
struct dialect {
	const struct sw_db_engine *eng;
	const char *setup; /* run once on open */
	const char *begin; /* a write transaction, one at a time */
	const char *schema; /* where the version is kept, or NULL */
	const char *version_get; /* one row, one integer */
	const char *version_set; /* followed by the new version */
	const char *const *migrations; /* NULL entry: the common text */
	const char *const *stmts; /* NULL entry: the common text */
	int types; /* name SQLite's types as PostgreSQL's */
};

/* clang-format off */
static const struct dialect lite_dialect = {
	.eng = &sw_db_sqlite,
	.setup = "PRAGMA journal_mode = WAL;"
	    "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;",
	.begin = "BEGIN IMMEDIATE",
	.version_get = "PRAGMA user_version",
	.version_set = "PRAGMA user_version = ",
};
/* clang-format on */

/*
 * PostgreSQL's text of the migrations whose dialect differs; the others
 * run as written above, their SQLite types named as PostgreSQL's
 * (pg_types()).  A PostgreSQL database is new with this engine and is
 * always migrated from nothing to the newest version in one
 * transaction, so the notification triggers, which SQLite's versions 10,
 * 12 and 13 wrote and rewrote, are made once, in their newest meaning,
 * at 13; 10 and 12 make only their tables and columns.  A trigger is a
 * PL/pgSQL function; slipway_notify() writes an event and its
 * deliveries when some subscription wants it, as each SQLite trigger
 * does inline.
 */
static const char *const pg_migrations[NMIGRATIONS] = {
	[9] =
	    "CREATE TABLE subscriptions ("
	    "  name TEXT PRIMARY KEY,"
	    "  target TEXT NOT NULL CHECK (target IN"
	    "    ('webhook','sns','eventbridge')),"
	    "  address TEXT NOT NULL,"
	    "  secret TEXT,"
	    "  format TEXT NOT NULL CHECK (format IN ('slipway','slack')),"
	    "  kinds TEXT NOT NULL,"
	    "  cluster TEXT,"
	    "  created_by TEXT NOT NULL,"
	    "  created INTEGER NOT NULL);"
	    "CREATE TABLE notify_events ("
	    "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
	    "  uid TEXT NOT NULL UNIQUE,"
	    "  kind TEXT NOT NULL,"
	    "  op_id TEXT NOT NULL,"
	    "  cluster TEXT,"
	    "  time INTEGER NOT NULL,"
	    "  data TEXT NOT NULL);"
	    /* id: SQLite's rowid, the order deliveries are listed in */
	    "CREATE TABLE deliveries ("
	    "  event_id INTEGER NOT NULL REFERENCES notify_events(id),"
	    "  sub TEXT NOT NULL,"
	    "  state TEXT NOT NULL CHECK (state IN ('pending','delivered','dead')),"
	    "  attempts INTEGER NOT NULL DEFAULT 0,"
	    "  due INTEGER NOT NULL,"
	    "  lease_owner TEXT,"
	    "  lease_until INTEGER NOT NULL DEFAULT 0,"
	    "  last_error TEXT,"
	    "  done INTEGER,"
	    "  id INTEGER GENERATED BY DEFAULT AS IDENTITY UNIQUE,"
	    "  PRIMARY KEY (event_id, sub));"
	    "CREATE INDEX deliveries_due ON deliveries(due)"
	    "  WHERE state = 'pending';"
	    "CREATE FUNCTION slipway_sub_gone() RETURNS trigger"
	    "  LANGUAGE plpgsql AS $$ BEGIN"
	    "  DELETE FROM deliveries WHERE sub = OLD.name; RETURN NULL;"
	    "  END $$;"
	    "CREATE TRIGGER notify_sub_gone AFTER DELETE ON subscriptions"
	    "  FOR EACH ROW EXECUTE FUNCTION slipway_sub_gone();",
	[11] = "ALTER TABLE budget_alerts ADD COLUMN forecast_micro INTEGER;",
	[12] =
	    "ALTER TABLE subscriptions ADD COLUMN team TEXT;"
	    "CREATE TABLE watch_state ("
	    "  cluster TEXT NOT NULL,"
	    "  kind TEXT NOT NULL,"
	    "  key TEXT NOT NULL,"
	    "  state TEXT NOT NULL,"
	    "  team TEXT,"
	    "  seen INTEGER NOT NULL,"
	    "  event TEXT,"
	    "  data TEXT,"
	    "  PRIMARY KEY (cluster, kind, key));"
	    /* kind p_kind about cluster p_cluster and team p_team (NULL: no
	 * team: only subscriptions of no team get it) */
	    "CREATE FUNCTION slipway_notify(p_kind text, p_op text,"
	    "  p_cluster text, p_team text, p_time bigint, p_data text)"
	    "  RETURNS void LANGUAGE plpgsql AS $$ DECLARE ev bigint; BEGIN"
	    "  IF NOT EXISTS (SELECT 1 FROM subscriptions s WHERE"
	    "   strpos(s.kinds, ',' || p_kind || ',') > 0"
	    "   AND (s.cluster IS NULL OR s.cluster IS NOT DISTINCT FROM p_cluster)"
	    "   AND (s.team IS NULL OR s.team IS NOT DISTINCT FROM p_team)) THEN"
	    "   RETURN; END IF;"
	    "  INSERT INTO notify_events (uid, kind, op_id, cluster, time, data)"
	    "   VALUES ('ev-' || substr(md5(random()::text ||"
	    "   clock_timestamp()::text), 1, 24), p_kind, p_op, p_cluster, p_time,"
	    "   p_data) RETURNING id INTO ev;"
	    "  INSERT INTO deliveries (event_id, sub, state, due)"
	    "   SELECT ev, s.name, 'pending', p_time FROM subscriptions s WHERE"
	    "   strpos(s.kinds, ',' || p_kind || ',') > 0"
	    "   AND (s.cluster IS NULL OR s.cluster IS NOT DISTINCT FROM p_cluster)"
	    "   AND (s.team IS NULL OR s.team IS NOT DISTINCT FROM p_team);"
	    "  END $$;"
	    "CREATE FUNCTION slipway_usd(m bigint) RETURNS jsonb"
	    "  LANGUAGE sql IMMUTABLE AS $$ SELECT ((m / 1000000)::text || '.' ||"
	    "  lpad((m % 1000000)::text, 6, '0'))::jsonb $$;"
	    "CREATE FUNCTION slipway_op_end() RETURNS trigger"
	    "  LANGUAGE plpgsql AS $$ BEGIN"
	    "  PERFORM slipway_notify('operation.' || NEW.state, NEW.id,"
	    "   NEW.cluster, NULL, NEW.updated, json_build_object('operation',"
	    "   NEW.id, 'kind', NEW.kind, 'target', NEW.target, 'cluster',"
	    "   NEW.cluster, 'state', NEW.state, 'error', NEW.error,"
	    "   'requested_by', NEW.token_name)::text);"
	    "  RETURN NULL; END $$;"
	    "CREATE TRIGGER notify_op_end AFTER UPDATE OF state ON operations"
	    "  FOR EACH ROW WHEN (NEW.state IN ('succeeded','failed','cancelled')"
	    "  AND OLD.state IS DISTINCT FROM NEW.state)"
	    "  EXECUTE FUNCTION slipway_op_end();"
	    "CREATE FUNCTION slipway_stage_end() RETURNS trigger"
	    "  LANGUAGE plpgsql AS $$ DECLARE o operations%ROWTYPE; BEGIN"
	    "  SELECT * INTO o FROM operations WHERE id = NEW.op_id;"
	    "  IF NOT FOUND THEN RETURN NULL; END IF;"
	    "  PERFORM slipway_notify('stage.' || NEW.state, o.id, o.cluster,"
	    "   NULL, NEW.finished, json_build_object('operation', o.id, 'kind',"
	    "   o.kind, 'target', o.target, 'cluster', o.cluster, 'stage',"
	    "   NEW.name, 'seq', NEW.seq, 'state', NEW.state, 'error', NEW.error,"
	    "   'attempts', NEW.attempts, 'requested_by', o.token_name)::text);"
	    "  RETURN NULL; END $$;"
	    "CREATE TRIGGER notify_stage_end AFTER UPDATE OF state ON stages"
	    "  FOR EACH ROW WHEN (NEW.state IN ('succeeded','failed')"
	    "  AND OLD.state IS DISTINCT FROM NEW.state)"
	    "  EXECUTE FUNCTION slipway_stage_end();"
	    /* its time the database's clock, as SQLite's julianday('now') */
	    "CREATE FUNCTION slipway_budget_cross() RETURNS trigger"
	    "  LANGUAGE plpgsql AS $$ BEGIN"
	    "  PERFORM slipway_notify('budget.threshold', '',"
	    "   CASE NEW.scope WHEN 'cluster' THEN NEW.name END,"
	    "   CASE NEW.scope WHEN 'team' THEN NEW.name END,"
	    "   (extract(epoch FROM clock_timestamp()) * 1000)::bigint,"
	    "   (jsonb_build_object('scope', NEW.scope, 'name', NEW.name,"
	    "   'month', NEW.month, 'threshold', NEW.threshold, 'crossed_at',"
	    "   to_char(to_timestamp(NEW.crossed) AT TIME ZONE 'UTC',"
	    "   'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),"
	    "   'spent_usd', slipway_usd(NEW.spent_micro),"
	    "   'limit_usd', slipway_usd(NEW.limit_micro)) ||"
	    "   CASE WHEN NEW.forecast_micro >= 0 THEN jsonb_build_object("
	    "   'forecast_usd', slipway_usd(NEW.forecast_micro))"
	    "   ELSE '{}'::jsonb END)::text);"
	    "  RETURN NULL; END $$;"
	    "CREATE TRIGGER notify_budget_cross AFTER INSERT ON budget_alerts"
	    "  FOR EACH ROW EXECUTE FUNCTION slipway_budget_cross();"
	    "CREATE FUNCTION slipway_watch() RETURNS trigger"
	    "  LANGUAGE plpgsql AS $$ BEGIN"
	    "  PERFORM slipway_notify(NEW.event, '', NEW.cluster, NEW.team,"
	    "   NEW.seen, NEW.data);"
	    "  RETURN NULL; END $$;"
	    "CREATE TRIGGER notify_watch AFTER UPDATE OF state ON watch_state"
	    "  FOR EACH ROW WHEN (NEW.event IS NOT NULL"
	    "  AND OLD.state IS DISTINCT FROM NEW.state)"
	    "  EXECUTE FUNCTION slipway_watch();",
	/*
	 * The last: a commit that changes an operation, its stages or its
	 * events NOTIFYs "op <id>" on the channel slipway; a token revoked
	 * or a session ended, "auth" (the stream checks its viewers'
	 * credentials again).  TG_ARGV[0] names the column of the
	 * operation's id, or is the payload itself when it has none.  A
	 * transaction's equal notifications are sent once.
	 */
	[17] =
	    "CREATE FUNCTION slipway_changed() RETURNS trigger"
	    "  LANGUAGE plpgsql AS $$ BEGIN"
	    "  IF TG_NARGS > 1 THEN"
	    "   PERFORM pg_notify('slipway', TG_ARGV[1]);"
	    "  ELSE"
	    "   PERFORM pg_notify('slipway', 'op ' || ((CASE TG_OP"
	    "    WHEN 'DELETE' THEN to_jsonb(OLD) ELSE to_jsonb(NEW) END)"
	    "    ->> TG_ARGV[0]));"
	    "  END IF;"
	    "  RETURN NULL; END $$;"
	    "CREATE TRIGGER changed_operation AFTER INSERT OR UPDATE OR DELETE"
	    "  ON operations FOR EACH ROW EXECUTE FUNCTION slipway_changed('id');"
	    "CREATE TRIGGER changed_stage AFTER INSERT OR UPDATE OR DELETE"
	    "  ON stages FOR EACH ROW EXECUTE FUNCTION slipway_changed('op_id');"
	    "CREATE TRIGGER changed_event AFTER INSERT OR DELETE"
	    "  ON events FOR EACH ROW EXECUTE FUNCTION slipway_changed('op_id');"
	    "CREATE TRIGGER changed_token AFTER UPDATE OF revoked OR DELETE"
	    "  ON tokens FOR EACH ROW EXECUTE FUNCTION"
	    "  slipway_changed('', 'auth');"
	    "CREATE TRIGGER changed_session AFTER DELETE ON sessions"
	    "  FOR EACH ROW EXECUTE FUNCTION slipway_changed('', 'auth');"
	    "CREATE TRIGGER changed_person_session AFTER DELETE"
	    "  ON person_sessions FOR EACH ROW EXECUTE FUNCTION"
	    "  slipway_changed('', 'auth');",
};

/*
 * PostgreSQL's text of the statements whose dialect differs: INSERT OR
 * IGNORE / OR REPLACE are ON CONFLICT; IS is IS NOT DISTINCT FROM; a
 * parameter only an operator with another parameter types is cast; an
 * upsert names the table of a column it reads; a claim skips the rows
 * another claim holds; an INSERT whose row id the caller reads
 * (sw_db_last_id) returns it.
 */
static const char *const pg_stmts[STMT__MAX] = {
	/* a parameter first met in "?N IS NULL" is given its type */
	[STMT_TOKEN_LIST] =
	    "SELECT id, name, scope, created, last_used, revoked, team, role,"
	    " expires FROM tokens WHERE ?1::text IS NULL OR team = ?1"
	    " ORDER BY created, name",
	[STMT_TOKEN_REVOKE] =
	    "UPDATE tokens SET revoked = ?2 WHERE name = ?1 AND revoked IS NULL"
	    " AND (?3::text IS NULL OR team = ?3)",
	[STMT_OP_LIST] =
	    "SELECT id, kind, target, cluster, params, state, token_name, created,"
	    " updated, result, error, cancel_requested, idem_key, due"
	    " FROM operations"
	    " WHERE (?1::text IS NULL OR kind = ?1)"
	    " AND (?2::text IS NULL OR state = ?2)"
	    " AND (?3::text IS NULL OR cluster = ?3)"
	    " AND (?4::text IS NULL OR token_name = ?4)"
	    " AND (?5::bigint IS NULL OR created < ?5 OR (created = ?5"
	    " AND id < ?6))"
	    " ORDER BY created DESC, id DESC LIMIT ?7",
	[STMT_LEDGER_READ] =
	    "SELECT day, cluster, instance_group, instance_type, team, job, kind,"
	    " seconds, usd_us FROM ledger WHERE day >= ?1 AND day <= ?2"
	    " AND (?3::text IS NULL OR cluster = ?3)"
	    " AND (?4::text IS NULL OR team = ?4)"
	    " ORDER BY day, cluster, instance_group, team, job, kind",
	[STMT_BUDGET_LIST] =
	    "SELECT scope, name, limit_micro, thresholds, created, updated"
	    " FROM budgets WHERE (?1::text IS NULL OR scope = ?1)"
	    " ORDER BY scope, name",
	[STMT_BUDGET_ALERTS] =
	    "SELECT id, scope, name, month, threshold, crossed, spent_micro,"
	    " limit_micro FROM budget_alerts WHERE (?1::text IS NULL OR scope = ?1)"
	    " AND (?2::text IS NULL OR name = ?2)"
	    " AND (?3::text IS NULL OR month = ?3)"
	    " AND id > ?4 ORDER BY id LIMIT ?5",
	[STMT_SUB_LIST] =
	    "SELECT s.name, s.target, s.address, s.secret IS NOT NULL, s.format,"
	    " s.kinds, s.cluster, s.created_by, s.created,"
	    " (SELECT count(*) FROM deliveries d WHERE d.sub = s.name"
	    "  AND d.state = 'pending'),"
	    " (SELECT count(*) FROM deliveries d WHERE d.sub = s.name"
	    "  AND d.state = 'delivered'),"
	    " (SELECT count(*) FROM deliveries d WHERE d.sub = s.name"
	    "  AND d.state = 'dead'), s.team"
	    " FROM subscriptions s WHERE ?1::text IS NULL OR s.name = ?1"
	    " ORDER BY s.name",
	[STMT_TOKEN_TOUCH] =
	    "UPDATE tokens SET last_used = ?2 WHERE id = ?1"
	    " AND (last_used IS NULL OR last_used <= ?2::bigint - ?3::bigint)",
	[STMT_OP_CLAIM_PICK] =
	    "SELECT id FROM operations WHERE state IN ('pending','running')"
	    " AND due <= ?1 AND lease_until <= ?1 ORDER BY due LIMIT 1"
	    " FOR UPDATE SKIP LOCKED",
	[STMT_OP_LIVE_ON_CLUSTER] =
	    "SELECT id FROM operations WHERE cluster = COALESCE(?1::text,"
	    " (SELECT cluster FROM operations WHERE id = ?2))"
	    " AND state IN ('pending','running') AND id IS DISTINCT FROM ?2"
	    " ORDER BY created LIMIT 1",
	[STMT_STAGE_SET_STATE] =
	    "UPDATE stages SET state = ?3, error = ?4,"
	    " attempts = attempts + CASE WHEN ?3 = 'running' THEN 1 ELSE 0 END,"
	    " started = CASE WHEN ?3 = 'running' THEN ?5::bigint ELSE started END,"
	    " finished = CASE WHEN ?3 IN ('succeeded','failed','cancelled',"
	    "  'skipped') THEN ?5::bigint ELSE NULL END"
	    " WHERE op_id = ?1 AND seq = ?2",
	[STMT_CLUSTER_INSERT] =
	    "INSERT INTO clusters (name, id, origin, created)"
	    " VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
	[STMT_PRICE_PUT] =
	    "INSERT INTO prices (service, region, instance_type,"
	    " usd_micro, sku, published, fetched)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
	    " ON CONFLICT (service, region, instance_type) DO UPDATE SET"
	    " usd_micro = excluded.usd_micro, sku = excluded.sku,"
	    " published = excluded.published, fetched = excluded.fetched",
	[STMT_TOKEN_BY_ID] =
	    "SELECT id, name, scope, hash, revoked, tools, team, role, expires, " PG_NOW
	    " FROM tokens WHERE id = ?1",
	[STMT_SESSION_BY_ID] =
	    "SELECT s.hash, s.expires, t.id, t.name, t.scope, t.revoked, t.team,"
	    " t.role, t.expires, " PG_NOW
	    " FROM sessions s JOIN tokens t ON t.id = s.token_id WHERE s.id = ?1",
	[STMT_PSESSION_BY_ID] =
	    "SELECT hash, expires, person_id, person, scope, groups, " PG_NOW
	    " FROM person_sessions WHERE id = ?1",
	[STMT_TURN_TAKE] =
	    "INSERT INTO turns (name, due) VALUES (?1, ?2::bigint + ?3::bigint)"
	    " ON CONFLICT (name) DO UPDATE SET due = ?2::bigint + ?3::bigint"
	    " WHERE turns.due <= ?2::bigint",
	[STMT_LEDGER_MOVE] =
	    "INSERT INTO ledger_cursor (cluster, sampled) VALUES (?1, ?3)"
	    " ON CONFLICT (cluster) DO UPDATE SET sampled = ?3"
	    " WHERE ledger_cursor.sampled = ?2",
	[STMT_LEDGER_ADD] =
	    "INSERT INTO ledger (day, cluster, instance_group, instance_type,"
	    " team, job, kind, seconds, usd_us)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
	    " ON CONFLICT (day, cluster, instance_group, instance_type, team,"
	    " job, kind) DO UPDATE SET"
	    " seconds = ledger.seconds + excluded.seconds,"
	    " usd_us = ledger.usd_us + excluded.usd_us",
	[STMT_BURN_ADD] =
	    "INSERT INTO ledger_burn (cluster, team, usd_micro_hour, sampled)"
	    " VALUES (?1, ?2, ?3, ?4) ON CONFLICT (cluster, team) DO UPDATE"
	    " SET usd_micro_hour = ledger_burn.usd_micro_hour"
	    " + excluded.usd_micro_hour, sampled = excluded.sampled",
	[STMT_BUDGET_BURN] =
	    "SELECT coalesce(sum(b.usd_micro_hour), 0),"
	    " coalesce(sum(b.usd_micro_hour * greatest(0, ?4::bigint"
	    " - greatest(b.sampled, ?3::bigint))), 0)"
	    " FROM ledger_burn b JOIN clusters c ON c.name = b.cluster"
	    " WHERE CASE ?1::text WHEN 'cluster' THEN b.cluster = ?2 AND"
	    " b.team = '' ELSE b.team = ?2 END",
	[STMT_BUDGET_CROSS] =
	    "INSERT INTO budget_alerts (scope, name, month, threshold,"
	    " crossed, spent_micro, limit_micro, forecast_micro)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
	    " ON CONFLICT DO NOTHING RETURNING id",
	[STMT_DELIVERY_RETRY] =
	    "UPDATE deliveries SET"
	    " state = CASE WHEN attempts >= ?6::bigint THEN 'dead'"
	    " ELSE 'pending' END,"
	    " done = CASE WHEN attempts >= ?6::bigint THEN ?7::bigint END,"
	    " due = ?4, last_error = ?5, lease_owner = NULL, lease_until = 0"
	    " WHERE event_id = ?1 AND sub = ?2 AND lease_owner = ?3",
	[STMT_DELIVERY_LIST] =
	    "SELECT e.uid, e.kind, e.op_id, e.cluster, e.time, d.sub, d.state,"
	    " d.attempts, d.due, d.last_error, d.done, d.id,"
	    " CASE e.kind WHEN 'budget.threshold' THEN"
	    "  (e.data::json ->> 'scope') || '/' || (e.data::json ->> 'name') END,"
	    " e.data::json ->> 'subject'"
	    " FROM deliveries d JOIN notify_events e ON e.id = d.event_id"
	    " WHERE (?1::text IS NULL OR d.state = ?1)"
	    " AND (?2::text IS NULL OR d.sub = ?2)"
	    " AND (?3::bigint IS NULL OR d.id < ?3)"
	    " ORDER BY d.id DESC LIMIT ?4",
	[STMT_NOTIFY_EVENT_ADD] =
	    "INSERT INTO notify_events (uid, kind, op_id, cluster, time, data)"
	    " SELECT ?1::text, ?2::text, '', ?3::text, ?4::bigint, ?5::text"
	    " WHERE EXISTS (SELECT 1 FROM subscriptions s"
	    " WHERE strpos(s.kinds, ',' || ?2::text || ',') > 0"
	    " AND (s.cluster IS NULL OR s.cluster IS NOT DISTINCT FROM ?3::text)"
	    " AND s.team IS NULL) ON CONFLICT DO NOTHING RETURNING id",
	[STMT_NOTIFY_DELIVERIES_ADD] =
	    "INSERT INTO deliveries (event_id, sub, state, due)"
	    " SELECT ?1::bigint, s.name, 'pending', ?2::bigint FROM subscriptions s"
	    " WHERE strpos(s.kinds, ',' || ?3::text || ',') > 0"
	    " AND (s.cluster IS NULL OR s.cluster IS NOT DISTINCT FROM ?4::text)"
	    " AND s.team IS NULL",
	[STMT_DB_CLOCK] = "SELECT " PG_NOW,
	[STMT_CLUSTER_STATES] =
	    "SELECT c.name, c.account, c.region,"
	    " EXISTS (SELECT 1 FROM operations o WHERE o.cluster = c.name"
	    "  AND o.state IN ('pending','running')"
	    "  AND o.kind = 'cluster.create')"
	    " OR (c.origin = 'created' AND NOT EXISTS (SELECT 1"
	    "  FROM operations x WHERE x.cluster = c.name"
	    "  AND x.kind = 'cluster.create')),"
	    " (SELECT s.ext::json ->> 'create_requested'"
	    "  FROM operations o JOIN stages s ON s.op_id = o.id"
	    "  AND s.name = 'hyperpod' WHERE o.cluster = c.name"
	    "  AND o.state IN ('pending','running')"
	    "  AND o.kind = 'cluster.create' LIMIT 1)"
	    " FROM clusters c WHERE ?1::text IS NULL OR c.name = ?1::text"
	    " ORDER BY c.name",
	[STMT_TURNS_WAITING] =
	    "SELECT name FROM turns"
	    " WHERE substr(name, 1, length(?1::text)) = ?1::text"
	    " AND due > ?2::bigint",
};

/* clang-format off */
static const struct dialect pg_dialect = {
	.eng = &sw_db_pg,
	/* lock_timeout: SW_DB_WRITE_WAIT_MS, the writers' turn.  A process
	 * paused (SIGSTOP, a VM frozen) inside a transaction would hold the
	 * writers' lock and stall every replica until it runs again: the
	 * server ends such a session after 3 s idle in its transaction (no
	 * transaction waits on anything but the database), well within a
	 * lease (SW_OP_LEASE), and the process connects again once it
	 * resumes, its transaction failed. */
	.setup = "SET lock_timeout = '30s'; SET client_min_messages = warning;"
	    " SET TIME ZONE 'UTC'; SET idle_in_transaction_session_timeout"
	    " = '3s';",
	.begin = "BEGIN; SELECT pg_advisory_xact_lock(53105)",
	.schema = "CREATE TABLE IF NOT EXISTS slipway_schema ("
	    " version INTEGER NOT NULL);"
	    " INSERT INTO slipway_schema SELECT 0 WHERE NOT EXISTS"
	    " (SELECT 1 FROM slipway_schema)",
	.version_get = "SELECT version FROM slipway_schema",
	.version_set = "UPDATE slipway_schema SET version = ",
	.migrations = pg_migrations,
	.stmts = pg_stmts,
	.types = 1,
};
/* clang-format on */

static const struct dialect *
dialect_of(struct sw_db *db)
{
	return db->eng == &sw_db_pg ? &pg_dialect : &lite_dialect;
}

int
sw_db_is_pg_url(const char *where)
{
	return strncmp(where, "postgresql://", 13) == 0 ||
	    strncmp(where, "postgres://", 11) == 0;
}

sw_err
sw_db_fleet_put(struct sw_db *db, const char *doc, const char *by, int64_t ms)
{
	struct sw_st *st = sw_db_stmt(db, STMT_FLEET_PUT);

	if (st == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, doc);
	sw_bind_text(st, 2, by);
	sw_bind_int64(st, 3, ms);
	return sw_db_exec(db, st);
}

sw_err
sw_db_fleet_get(
    struct sw_db *db, json_object **doc, char *by, size_t bysz, int64_t *ms)
{
	struct sw_st *st = sw_db_stmt(db, STMT_FLEET_GET);
	int rc;

	*doc = NULL;
	if (st == NULL)
		return SW_EDB;
	if ((rc = sw_db_step(st)) == SW_DB_ROW) {
		*doc = json_tokener_parse(sw_col_text(st, 0));
		sw_fmt_text(by, bysz, "%s", sw_col_text(st, 1));
		*ms = sw_col_int64(st, 2);
	}
	sw_reset(st);
	if (rc == SW_DB_DONE)
		return SW_ENOTFOUND;
	if (rc != SW_DB_ROW)
		return sw_db_err(db, rc);
	return *doc != NULL ? SW_OK : SW_EDB;
}

/*
 * The differences the poller found in cluster at now (an array of
 * {target, field, live, desired}), in one transaction: each kept with
 * when it was first seen, and those no longer found forgotten.
 */
sw_err
sw_db_drift_record(
    struct sw_db *db, const char *cluster, json_object *found, int64_t now)
{
	struct sw_st *put = sw_db_stmt(db, STMT_DRIFT_PUT);
	struct sw_st *sweep = sw_db_stmt(db, STMT_DRIFT_SWEEP);
	size_t i;
	sw_err e;

	if (put == NULL || sweep == NULL)
		return SW_EDB;
	if ((e = sw_db_begin(db)) != SW_OK)
		return e;
	for (i = 0; found != NULL && i < json_object_array_length(found); i++) {
		json_object *d = json_object_array_get_idx(found, i);

		sw_bind_text(put, 1, cluster);
		sw_bind_text(put, 2, sw_json_get_str(d, "target"));
		sw_bind_text(put, 3, sw_json_get_str(d, "field"));
		sw_bind_text(
		    put, 4, json_object_to_json_string(sw_json_get(d, "live")));
		sw_bind_text(put, 5,
		    json_object_to_json_string(sw_json_get(d, "desired")));
		sw_bind_int64(put, 6, now);
		if ((e = sw_db_exec(db, put)) != SW_OK) {
			sw_db_rollback(db);
			return e;
		}
	}
	sw_bind_text(sweep, 1, cluster);
	sw_bind_int64(sweep, 2, now);
	if ((e = sw_db_exec(db, sweep)) != SW_OK) {
		sw_db_rollback(db);
		return e;
	}
	return sw_db_commit(db);
}

sw_err
sw_db_drift_list(struct sw_db *db, const char *cluster, json_object **items)
{
	struct sw_st *st = sw_db_stmt(db, STMT_DRIFT_LIST);
	int rc;

	*items = NULL;
	if (st == NULL)
		return SW_EDB;
	*items = json_object_new_array();
	if (cluster != NULL)
		sw_bind_text(st, 1, cluster);
	else
		sw_bind_null(st, 1);
	while ((rc = sw_db_step(st)) == SW_DB_ROW)
		json_object_array_add(*items,
		    sw_jo("cluster", sw_js(sw_col_text(st, 0)), "target",
			sw_js(sw_col_text(st, 1)), "field",
			sw_js(sw_col_text(st, 2)), "live",
			json_tokener_parse(sw_col_text(st, 3)), "desired",
			json_tokener_parse(sw_col_text(st, 4)), "first_seen_ms",
			json_object_new_int64(sw_col_int64(st, 5)), "seen_ms",
			json_object_new_int64(sw_col_int64(st, 6)), NULL));
	return sw_db_rows_end(db, st, rc, items);
}

int64_t
sw_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 +
	    (int64_t)sw_fault_clock_skew();
}

void
sw_bind_text(struct sw_st *st, int i, const char *v)
{
	if (v == NULL)
		st->eng->bind_null(st, i);
	else
		st->eng->bind_text(st, i, v, 0);
}

void
sw_bind_text_copy(struct sw_st *st, int i, const char *v)
{
	if (v == NULL)
		st->eng->bind_null(st, i);
	else
		st->eng->bind_text(st, i, v, 1);
}

void
sw_bind_int64(struct sw_st *st, int i, int64_t v)
{
	st->eng->bind_int64(st, i, v);
}

void
sw_bind_null(struct sw_st *st, int i)
{
	st->eng->bind_null(st, i);
}

void
sw_bind_blob(struct sw_st *st, int i, const void *p, size_t n)
{
	st->eng->bind_blob(st, i, p, n);
}

void
sw_bind_opt(struct sw_st *st, int i, const char *v)
{
	if (v != NULL)
		st->eng->bind_text(st, i, v, 0);
}

int
sw_col_null(struct sw_st *st, int col)
{
	return st->eng->col_null(st, col);
}

int
sw_col_is_int(struct sw_st *st, int col)
{
	return st->eng->col_is_int(st, col);
}

int64_t
sw_col_int64(struct sw_st *st, int col)
{
	return st->eng->col_int64(st, col);
}

int
sw_col_int(struct sw_st *st, int col)
{
	return (int)st->eng->col_int64(st, col);
}

const char *
sw_col_text(struct sw_st *st, int col)
{
	const char *s = st->eng->col_text(st, col);

	return s ? s : "";
}

const char *
sw_col_text_or_null(struct sw_st *st, int col)
{
	return st->eng->col_text(st, col);
}

const void *
sw_col_blob(struct sw_st *st, int col, size_t *n)
{
	return st->eng->col_blob(st, col, n);
}

int64_t
sw_db_changes(struct sw_db *db)
{
	return db->eng->changes(db);
}

int64_t
sw_db_total_changes(struct sw_db *db)
{
	return db->eng->total_changes(db);
}

int64_t
sw_db_last_id(struct sw_db *db)
{
	return db->eng->last_id(db);
}

void
sw_reset(struct sw_st *st)
{
	st->busy = 0;
	st->eng->reset(st);
}

sw_err
sw_db_exec(struct sw_db *db, struct sw_st *st)
{
	int rc;

	if (st == NULL)
		return SW_EDB;
	rc = sw_db_step(st);
	sw_reset(st);
	return rc == SW_DB_DONE ? SW_OK : sw_db_err(db, rc);
}

const char *
sw_db_rc_str(int rc)
{
	switch (rc) {
	case SW_DB_DONE:
		return "done";
	case SW_DB_ROW:
		return "row";
	case SW_DB_CONSTRAINT:
		return "constraint failed";
	case SW_DB_BUSY:
		return "database is locked";
	case SW_DB_CORRUPT:
		return "database disk image is malformed";
	default:
		return "database failure";
	}
}

sw_err
sw_db_err(struct sw_db *db, int rc)
{
	switch (rc) {
	case SW_DB_DONE:
	case SW_DB_ROW:
		return SW_OK;
	case SW_DB_CONSTRAINT:
		return SW_ECONFLICT;
	default:
		sw_error("%s: %s (%d)", db ? db->eng->name : "db",
		    db ? db->eng->errmsg(db) : sw_db_rc_str(rc), rc);
		return SW_EDB;
	}
}

int
sw_db_step(struct sw_st *st)
{
	int rc;

	if (sw_fault_hit(SW_FAULT_SQLITE, "step"))
		return SW_DB_FAIL;
	rc = st->eng->step(st);
	st->busy = rc == SW_DB_ROW;
	return rc;
}

static sw_err
db_exec(struct sw_db *db, const char *sql)
{
	int rc;

	if (sw_fault_hit(SW_FAULT_SQLITE, sql)) {
		sw_error("%s exec: injected fault", db->eng->name);
		return SW_EDB;
	}
	rc = db->eng->exec(db, sql);
	if (rc == SW_DB_DONE)
		return SW_OK;
	return rc == SW_DB_BUSY ? SW_EUNAVAIL : SW_EDB;
}

sw_err
sw_db_exec_sql(struct sw_db *db, const char *sql)
{
	return db_exec(db, sql);
}

sw_err
sw_db_prepare(struct sw_db *db, const char *sql, struct sw_st **out)
{
	*out = db->eng->prepare(db, sql);
	return *out != NULL ? SW_OK : SW_EDB;
}

void
sw_st_free(struct sw_st *st)
{
	if (st != NULL)
		st->eng->finalize(st);
}

int
sw_db_version(struct sw_db *db)
{
	struct sw_st *st;
	int v = -1;

	if ((st = db->eng->prepare(db, dialect_of(db)->version_get)) == NULL)
		return -1;
	if (sw_db_step(st) == SW_DB_ROW)
		v = sw_col_int(st, 0);
	st->eng->finalize(st);
	return v;
}

sw_err
sw_db_clock_ms(struct sw_db *db, int64_t *ms)
{
	struct sw_st *st;
	int rc;

	if ((st = sw_db_stmt(db, STMT_DB_CLOCK)) == NULL)
		return SW_EDB;
	if ((rc = sw_db_step(st)) == SW_DB_ROW)
		*ms = sw_col_int64(st, 0);
	sw_reset(st);
	return rc == SW_DB_ROW ? SW_OK : SW_EDB;
}

int64_t
sw_db_now_ms(struct sw_db *db)
{
	int64_t ms;

	if (db == NULL || sw_db_clock_ms(db, &ms) != SW_OK)
		return sw_now_ms();
	return ms;
}

int
sw_db_version_latest(void)
{
	return NMIGRATIONS;
}

const char *
sw_db_engine(struct sw_db *db)
{
	return db->eng->name;
}

const char *
sw_db_engine_version(struct sw_db *db)
{
	return db->version;
}

/*
 * SQLite's column types named as PostgreSQL's: INTEGER (64 bits in
 * SQLite) is BIGINT, BLOB is BYTEA, and a row id kept in order is an
 * identity column.  A new string the caller frees, or NULL.
 */
static char *
pg_types(const char *sql)
{
	static const struct {
		const char *from, *to;
	} map[] = {
		{ " INTEGER PRIMARY KEY AUTOINCREMENT",
		    " BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY" },
		{ " INTEGER", " BIGINT" },
		{ " BLOB", " BYTEA" },
	};
	size_t n = strlen(sql), i;
	char *out, *o;

	if ((out = o = sw_malloc(n * 2 + 1)) == NULL)
		return NULL;
	while (*sql != '\0') {
		for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
			if (strncmp(sql, map[i].from, strlen(map[i].from)) == 0)
				break;
		if (i == sizeof(map) / sizeof(map[0])) {
			*o++ = *sql++;
			continue;
		}
		memcpy(o, map[i].to, strlen(map[i].to));
		o += strlen(map[i].to);
		sql += strlen(map[i].from);
	}
	*o = '\0';
	return out;
}

/* Run migration v (from version v to v + 1) in the engine's dialect. */
static sw_err
migrate_one(struct sw_db *db, int v)
{
	const struct dialect *d = dialect_of(db);
	const char *sql = migrations[v];
	char *typed;
	sw_err e;

	if (d->migrations != NULL && d->migrations[v] != NULL)
		sql = d->migrations[v];
	if (!d->types)
		return db_exec(db, sql);
	if ((typed = pg_types(sql)) == NULL)
		return SW_ENOMEM;
	e = db_exec(db, typed);
	free(typed);
	return e;
}

static sw_err
db_migrate(struct sw_db *db)
{
	char sql[96];
	int v;
	sw_err e;

	if ((e = sw_db_begin(db)) != SW_OK)
		return e;
	if (dialect_of(db)->schema != NULL &&
	    (e = db_exec(db, dialect_of(db)->schema)) != SW_OK)
		goto bad;
	/* Re-read inside the write lock: another process may have won. */
	if ((v = sw_db_version(db)) < 0) {
		sw_db_rollback(db);
		return SW_EDB;
	}
	if (v > NMIGRATIONS) {
		sw_error("the %s database's schema %d is newer than this "
			 "build (%d)",
		    db->eng->name, v, NMIGRATIONS);
		sw_db_rollback(db);
		return SW_EDB;
	}
	for (; v < NMIGRATIONS; v++) {
		if ((e = migrate_one(db, v)) != SW_OK)
			goto bad;
		if ((e = sw_fmt(sql, sizeof(sql), "%s%d",
			 dialect_of(db)->version_set, v + 1)) != SW_OK ||
		    (e = db_exec(db, sql)) != SW_OK)
			goto bad;
	}
	return sw_db_commit(db);
bad:
	sw_db_rollback(db);
	return e;
}

sw_err
sw_db_open(const char *where, struct sw_db **out)
{
	const struct sw_db_engine *eng =
	    sw_db_is_pg_url(where) ? &sw_db_pg : &sw_db_sqlite;
	struct sw_db *db = NULL;
	sw_err e;

	*out = NULL;
	if ((e = eng->open(where, &db)) != SW_OK)
		goto bad;
	if ((db->where = sw_strdup(where)) == NULL) {
		e = SW_ENOMEM;
		goto bad;
	}
	if ((db->stmt = sw_calloc(STMT__MAX, sizeof(*db->stmt))) == NULL) {
		e = SW_ENOMEM;
		goto bad;
	}
	if ((e = db_exec(db, dialect_of(db)->setup)) != SW_OK)
		goto bad;
	if ((e = db_migrate(db)) != SW_OK)
		goto bad;
	*out = db;
	return SW_OK;
bad:
	sw_db_close(db);
	return e;
}

void
sw_db_close(struct sw_db *db)
{
	int i;

	if (db == NULL)
		return;
	db->closing = 1;
	for (i = 0; db->stmt != NULL && i < STMT__MAX; i++)
		if (db->stmt[i] != NULL)
			db->eng->finalize(db->stmt[i]);
	free(db->stmt);
	free(db->where);
	db->eng->close(db);
}

sw_err
sw_db_watch_open(struct sw_db *db, struct sw_db_watch **out)
{
	*out = db->eng->watch_open(db->where);
	return *out != NULL ? SW_OK : SW_EUNAVAIL;
}

int
sw_db_wait(struct sw_db_watch *w, int timeout_ms, char *what, size_t whatsz)
{
	what[0] = '\0';
	if (timeout_ms < 0)
		timeout_ms = 0;
	return w->eng->watch_wait(w, timeout_ms, what, whatsz);
}

void
sw_db_watch_close(struct sw_db_watch *w)
{
	if (w != NULL)
		w->eng->watch_close(w);
}

static const char *
stmt_text(struct sw_db *db, enum sw_stmt s)
{
	const struct dialect *d = dialect_of(db);

	if (d->stmts != NULL && d->stmts[s] != NULL)
		return d->stmts[s];
	return stmt_sql[s];
}

sw_err
sw_db_rows_end(struct sw_db *db, struct sw_st *st, int rc, json_object **out)
{
	sw_reset(st);
	if (rc == SW_DB_DONE)
		return SW_OK;
	json_object_put(*out);
	*out = NULL;
	return sw_db_err(db, rc);
}

struct sw_st *
sw_db_stmt(struct sw_db *db, enum sw_stmt s)
{
	struct sw_st *st;

	if ((unsigned)s >= STMT__MAX)
		return NULL;
	if ((st = db->stmt[s]) == NULL) {
		if (sw_fault_hit(SW_FAULT_SQLITE, "prepare")) {
			sw_error(
			    "prepare statement %d: injected fault", (int)s);
			return NULL;
		}
		if ((db->stmt[s] = db->eng->prepare(db, stmt_text(db, s))) ==
		    NULL)
			sw_error("prepare statement %d failed", (int)s);
		return db->stmt[s];
	}
	sw_reset(st);
	st->eng->clear(st);
	return st;
}

/* Reset every statement of the table left mid-step. */
static void
reset_busy(struct sw_db *db)
{
	int i;

	for (i = 0; i < STMT__MAX; i++)
		if (db->stmt[i] != NULL && db->stmt[i]->busy)
			sw_reset(db->stmt[i]);
}

sw_err
sw_db_begin(struct sw_db *db)
{
	int rc;

	/* A write starts on the newest snapshot: a statement of ours left
	 * holding an older one would make BEGIN IMMEDIATE fail at once
	 * (SQLITE_BUSY_SNAPSHOT) instead of waiting for the lock. */
	reset_busy(db);
	if (sw_fault_hit(SW_FAULT_SQLITE, "BEGIN IMMEDIATE"))
		return SW_EDB;
	if ((rc = db->eng->begin(db, dialect_of(db)->begin)) == SW_DB_DONE)
		return SW_OK;
	return rc == SW_DB_BUSY ? SW_EUNAVAIL : SW_EDB;
}

sw_err
sw_db_commit(struct sw_db *db)
{
	sw_err e;

	/* A COMMIT that fails (busy, I/O, a deferred constraint) leaves
	 * the transaction open; end it, or this connection's next BEGIN
	 * fails for as long as the process lives. */
	if ((e = db_exec(db, "COMMIT")) != SW_OK)
		sw_db_rollback(db);
	return e;
}

void
sw_db_rollback(struct sw_db *db)
{
	(void)db->eng->exec(db, "ROLLBACK");
}

int
sw_db_txn(struct sw_db *db)
{
	return db->eng->txn(db);
}

sw_err
sw_db_idle(struct sw_db *db)
{
	sw_err e = SW_OK;
	int t;

	if (db == NULL)
		return SW_OK;
	reset_busy(db);
	if ((t = db->eng->txn(db)) != SW_TXN_NONE) {
		sw_error("a unit of work ended inside a %s transaction",
		    t == SW_TXN_READ ? "read" : "explicit");
		sw_db_rollback(db);
		e = SW_EINTERNAL;
	}
	return e;
}
