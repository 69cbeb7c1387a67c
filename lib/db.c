/*
 * db.c: SQLite state store (see db.h).  Holds the schema migrations,
 * numbered by PRAGMA user_version and applied in one transaction each,
 * and the statement table: all SQL of the program, indexed by enum
 * sw_stmt, prepared on first use and kept for the connection's life.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/buf.h"
#include "lib/alloc.h"
#include "lib/db.h"
#include "lib/fault.h"
#include "lib/limits.h"
#include "lib/log.h"

struct sw_db {
	sqlite3		*h;
	sqlite3_stmt	*stmt[STMT__MAX];
};

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
	/* N: the account and region a cluster lives in; NULL: Slipway's
	 * own (the account of its credentials, the configured region) */
	"ALTER TABLE clusters ADD COLUMN account TEXT;"
	"ALTER TABLE clusters ADD COLUMN region TEXT;",
};

#define NMIGRATIONS	((int)(sizeof(migrations) / sizeof(migrations[0])))

static const char *const stmt_sql[STMT__MAX] = {
	/* STMT_TOKEN_INSERT */
	"INSERT INTO tokens (id, name, scope, hash, created)"
	" VALUES (?1, ?2, ?3, ?4, ?5)",
	/* STMT_TOKEN_BY_ID */
	"SELECT id, name, scope, hash, revoked, tools, team, role, expires"
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
	/* STMT_SESSION_BY_ID */
	"SELECT s.hash, s.expires, t.id, t.name, t.scope, t.revoked, t.team,"
	" t.role, t.expires FROM sessions s JOIN tokens t ON t.id = s.token_id"
	" WHERE s.id = ?1",
	/* STMT_SESSION_DELETE */
	"DELETE FROM sessions WHERE id = ?1",
	/* STMT_SESSION_PURGE */
	"DELETE FROM sessions WHERE expires < ?1",
	/* STMT_PSESSION_INSERT */
	"INSERT INTO person_sessions (id, hash, person, person_id, scope,"
	" groups, created, expires) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	/* STMT_PSESSION_BY_ID */
	"SELECT hash, expires, person_id, person, scope, groups"
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
	" state = 'running', updated = ?4"
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
	/* STMT_OP_OWNERS */
	"SELECT DISTINCT lease_owner FROM operations"
	" WHERE lease_owner IS NOT NULL",
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
	/* STMT_DELIVERY_OWNERS */
	"SELECT DISTINCT lease_owner FROM deliveries"
	" WHERE lease_owner IS NOT NULL",
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
	/* STMT_CLUSTER_PLACE: where the cluster of that id lives */
	"UPDATE clusters SET account = ?3, region = ?4"
	" WHERE name = ?1 AND id = ?2",
	/* STMT_CLUSTER_PLACES: every other account and region holding one */
	"SELECT DISTINCT coalesce(account, ''), coalesce(region, '')"
	" FROM clusters WHERE account IS NOT NULL OR region IS NOT NULL"
	" ORDER BY 1, 2",
};

int64_t
sw_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *
sw_col_text(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	return s ? (const char *)s : "";
}

sw_err
sw_db_exec(struct sw_db *db, sqlite3_stmt *st)
{
	int rc;

	if (st == NULL)
		return SW_EDB;
	rc = sw_db_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? SW_OK : sw_db_err(db, rc);
}

void
sw_bind_opt(sqlite3_stmt *st, int i, const char *v)
{
	if (v != NULL)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
}

sw_err
sw_db_err(struct sw_db *db, int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return SW_OK;
	case SQLITE_CONSTRAINT:
		return SW_ECONFLICT;
	default:
		sw_error("sqlite: %s (%d)", db ? sqlite3_errmsg(db->h) :
		    sqlite3_errstr(rc), rc);
		return SW_EDB;
	}
}

int
sw_db_step(sqlite3_stmt *st)
{
	if (sw_fault_hit(SW_FAULT_SQLITE, "step"))
		return SQLITE_IOERR;
	return sqlite3_step(st);
}

static sw_err
db_exec(struct sw_db *db, const char *sql)
{
	char *msg = NULL;
	int rc;

	if (sw_fault_hit(SW_FAULT_SQLITE, sql))
		rc = SQLITE_IOERR;
	else
		rc = sqlite3_exec(db->h, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		sw_error("sqlite exec: %s", msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return rc == SQLITE_BUSY ? SW_EUNAVAIL : SW_EDB;
	}
	return SW_OK;
}

int
sw_db_version(struct sw_db *db)
{
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_prepare_v2(db->h, "PRAGMA user_version", -1, &st,
	    NULL) != SQLITE_OK)
		return -1;
	if (sw_db_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

int
sw_db_version_latest(void)
{
	return NMIGRATIONS;
}

static sw_err
db_migrate(struct sw_db *db)
{
	char sql[64];
	int v;
	sw_err e;

	if ((e = sw_db_begin(db)) != SW_OK)
		return e;
	/* Re-read inside the write lock: another process may have won. */
	if ((v = sw_db_version(db)) < 0) {
		sw_db_rollback(db);
		return SW_EDB;
	}
	if (v > NMIGRATIONS) {
		sw_error("state.db schema %d is newer than this build (%d)",
		    v, NMIGRATIONS);
		sw_db_rollback(db);
		return SW_EDB;
	}
	for (; v < NMIGRATIONS; v++) {
		if ((e = db_exec(db, migrations[v])) != SW_OK)
			goto bad;
		if ((e = sw_fmt(sql, sizeof(sql), "PRAGMA user_version = %d",
		    v + 1)) != SW_OK || (e = db_exec(db, sql)) != SW_OK)
			goto bad;
	}
	return sw_db_commit(db);
bad:
	sw_db_rollback(db);
	return e;
}

sw_err
sw_db_open(const char *path, struct sw_db **out)
{
	struct sw_db *db;
	sw_err e;

	*out = NULL;
	if ((db = sw_calloc(1, sizeof(*db))) == NULL)
		return SW_ENOMEM;
	if (sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		sw_error("cannot open %s: %s", path, db->h ?
		    sqlite3_errmsg(db->h) : "out of memory");
		e = SW_EDB;
		goto bad;
	}
	sqlite3_busy_timeout(db->h, SW_DB_BUSY_MS);
	if ((e = db_exec(db, "PRAGMA journal_mode = WAL;"
	    "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;")) !=
	    SW_OK)
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
	for (i = 0; i < STMT__MAX; i++)
		sqlite3_finalize(db->stmt[i]);
	sqlite3_close(db->h);
	free(db);
}

sqlite3_stmt *
sw_db_stmt(struct sw_db *db, enum sw_stmt s)
{
	sqlite3_stmt *st;

	if ((unsigned)s >= STMT__MAX)
		return NULL;
	if ((st = db->stmt[s]) == NULL) {
		if (sw_fault_hit(SW_FAULT_SQLITE, "prepare")) {
			sw_error("prepare statement %d: injected fault", (int)s);
			return NULL;
		}
		if (sqlite3_prepare_v3(db->h, stmt_sql[s], -1,
		    SQLITE_PREPARE_PERSISTENT, &db->stmt[s], NULL) !=
		    SQLITE_OK) {
			sw_error("prepare statement %d: %s", (int)s,
			    sqlite3_errmsg(db->h));
			return NULL;
		}
		return db->stmt[s];
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return st;
}

/* Reset every statement of the table left mid-step. */
static void
reset_busy(struct sw_db *db)
{
	int i;

	for (i = 0; i < STMT__MAX; i++)
		if (db->stmt[i] != NULL && sqlite3_stmt_busy(db->stmt[i]))
			sqlite3_reset(db->stmt[i]);
}

sw_err
sw_db_begin(struct sw_db *db)
{
	int64_t until = sw_now_ms() + SW_DB_WRITE_WAIT_MS;
	int rc;

	/* A write starts on the newest snapshot: a statement of ours left
	 * holding an older one would make BEGIN IMMEDIATE fail at once
	 * (SQLITE_BUSY_SNAPSHOT) instead of waiting for the lock. */
	reset_busy(db);
	if (sw_fault_hit(SW_FAULT_SQLITE, "BEGIN IMMEDIATE"))
		return SW_EDB;
	/* Each try waits SW_DB_BUSY_MS in SQLite's busy handler; a slow
	 * machine gets more tries, up to SW_DB_WRITE_WAIT_MS in all. */
	while ((rc = sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL,
	    NULL)) == SQLITE_BUSY && sw_now_ms() < until)
		;
	if (rc == SQLITE_OK)
		return SW_OK;
	sw_error("sqlite: BEGIN IMMEDIATE: %s", sqlite3_errmsg(db->h));
	return (rc & 0xff) == SQLITE_BUSY ? SW_EUNAVAIL : SW_EDB;
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
	(void)sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
}

sw_err
sw_db_idle(struct sw_db *db)
{
	sw_err e = SW_OK;

	if (db == NULL)
		return SW_OK;
	reset_busy(db);
	if (sqlite3_txn_state(db->h, NULL) != SQLITE_TXN_NONE) {
		sw_error("a unit of work ended inside a %s transaction",
		    sqlite3_get_autocommit(db->h) ? "read" : "explicit");
		sw_db_rollback(db);
		e = SW_EINTERNAL;
	}
	return e;
}

sqlite3 *
sw_db_handle(struct sw_db *db)
{
	return db->h;
}
