#!/usr/bin/python3
# 12-oidc.t: a real OpenID provider's access tokens as Bearer tokens on
# the API and /mcp.  The provider is the npm package oidc-provider
# (t/lib/oidc-provider.mjs) on loopback; tokens come from its token
# endpoint (client_credentials with a resource indicator), and the ones
# it would never issue are signed with its own keys by
# t/lib/jwt-forge.mjs.  Checks: a provider token reads the API and calls
# an MCP tool as the person; RS256 and ES256; the protected resource
# metadata (RFC 9728) and the WWW-Authenticate that points at it;
# forged, expired, not-yet-valid, wrong audience, wrong issuer, alg
# none, HS256 signed with the public key and unknown kid are all 401
# and write nothing; the streams take the same tokens; a key rotation
# at the provider is picked up on the kid miss; a provider that is down with nothing cached is a 401.
import base64
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack, SRCDIR, wait_for
from oidcop import Provider
from mcp_raw import Mcp
import wsclient

t = T()
NODE_MODULES = os.path.join(SRCDIR, "t", "node_modules", "oidc-provider")
if not os.path.isdir(NODE_MODULES):
    t.skip_all("t/node_modules is missing (cd t && npm ci)")
LIB = os.path.join(SRCDIR, "t", "lib")
tmp = tempfile.mkdtemp(prefix="sw-oidc-")
provider = Provider(t, tmp)
issuer = provider.issuer
conf = os.path.join(tmp, "slipway.conf")
with open(conf, "w") as f:
    f.write("oidc.issuer = %s\n" % issuer)
    f.write("oidc.user_claim = preferred_username\n")
    f.write("oidc.groups_claim = groups\n")
    f.write("oidc.algorithms = RS256 ES256\n")
    f.write("oidc.scope = write\n")
    f.write("oidc.clock_skew = 30\n")
os.environ["SLIPWAY_CONF"] = conf
s = Stack(t)
resource = "http://127.0.0.1:%d" % s.port


def provider_token(who, secret, res=resource):
    return provider.token(who, secret, res)


def claims_of(tok):
    part = tok.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def header_of(tok):
    part = tok.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def forge(header, claims, how="sign", kid=None):
    with open(os.path.join(tmp, "keys.json")) as f:
        keys = json.load(f)["keys"]
    want = "EC" if header.get("alg") == "ES256" else "RSA"
    jwk = next(k for k in keys if k["kty"] == want)
    header = dict(header)
    if kid is not None or "kid" not in header:
        header["kid"] = kid or jwk["kid"]
    req = json.dumps({"jwk": jwk, "header": header, "claims": claims,
                      "how": how})
    r = subprocess.run(["node", os.path.join(LIB, "jwt-forge.mjs")],
                       input=req, capture_output=True, text=True,
                       timeout=60)
    if r.returncode != 0:
        t.diag(r.stderr)
    return r.stdout.strip()


# ---- a real provider token -------------------------------------------
alice = provider_token("alice", "alice-secret")
t.eq(header_of(alice)["alg"], "RS256", "alice's token is RS256")
r = s.get("/api/v1/whoami", token=alice)
t.eq(r.status, 200, "a provider token reads the API")
t.eq((r.json or {}).get("name"), "alice@example.com",
     "the person (preferred_username) is the principal")
t.eq(((r.json or {}).get("via"), (r.json or {}).get("scope")),
     ("provider", "write"), "via the provider, with the configured scope")
t.eq((r.json or {}).get("groups"), "ml-team-a,platform",
     "the groups claim is read")
t.eq(s.get("/api/v1/version", token=alice).status, 200,
     "a provider token reads the version")
bob = provider_token("bob", "bob-secret")
t.eq(header_of(bob)["alg"], "ES256", "bob's token is ES256")
r = s.get("/api/v1/whoami", token=bob)
t.eq((r.status, (r.json or {}).get("name")), (200, "bob@example.com"),
     "an ES256 provider token reads the API")
m = Mcp(s, token=alice)
r = m.call("whoami")
text = json.dumps(r.json or {})
t.ok(r.status == 200 and "alice@example.com" in text and
     "error" not in (r.json or {}), "a provider token calls an MCP tool")

# ---- the protected resource metadata ---------------------------------
r = s.get("/.well-known/oauth-protected-resource", token=None)
t.eq(r.status, 200, "the protected resource metadata is public")
md = r.json or {}
t.eq((md.get("resource"), md.get("authorization_servers")),
     (resource, [issuer]), "it names the resource and the provider")
r = s.get("/api/v1/whoami", token=None)
chal = r.header("WWW-Authenticate") or ""
want_md = 'resource_metadata="%s/.well-known/oauth-protected-resource"' % \
    resource
t.ok(r.status == 401 and chal.startswith("Bearer") and want_md in chal,
     "an API 401 points at the metadata (%s)" % chal)
r = m.call("whoami", token=None)
t.ok(r.status == 401 and want_md in (r.header("WWW-Authenticate") or ""),
     "an /mcp 401 points at the metadata")

# ---- tokens that must be refused -------------------------------------
now = int(time.time())
good = claims_of(alice)
rsa_head = header_of(alice)


def with_claims(**kw):
    c = dict(good, exp=now + 300, iat=now)
    for k, v in kw.items():
        if v is None:
            c.pop(k, None)
        else:
            c[k] = v
    return c


bad = {
    "forged signature": forge(rsa_head, with_claims(), how="garble"),
    "changed payload": alice.split(".")[0] + "." + base64.urlsafe_b64encode(
        json.dumps(dict(good, preferred_username="mallory")).encode())
    .decode().rstrip("=") + "." + alice.split(".")[2],
    "expired": forge(rsa_head, with_claims(exp=now - 120, iat=now - 400)),
    "not yet valid": forge(rsa_head, with_claims(nbf=now + 600)),
    "no exp": forge(rsa_head, with_claims(exp=None)),
    "wrong audience": forge(rsa_head, with_claims(
        aud="http://127.0.0.1:1")),
    "wrong issuer": forge(rsa_head, with_claims(iss=issuer + "/other")),
    "alg none": forge({"alg": "none", "typ": "at+jwt"}, with_claims(),
                      how="none"),
    "HS256 with the public key": forge(dict(rsa_head, alg="HS256"),
                                       with_claims(), how="hmac-public"),
    "unknown kid": forge(rsa_head, with_claims(), kid="no-such-kid"),
}
# The sanity check: the same forge with nothing wrong is accepted, so
# each refusal below is for the one thing changed.
t.eq(s.get("/api/v1/whoami", token=forge(rsa_head, with_claims())).status,
     200, "a token signed with the provider's key and good claims passes")
t.eq(s.get("/api/v1/whoami", token=forge(header_of(bob), claims_of(bob)))
     .status, 200, "the same for ES256")
tokens_before = s.get("/api/v1/tokens").json["items"]
ops_before = s.get("/api/v1/operations").json
for why, tok in bad.items():
    r = s.get("/api/v1/whoami", token=tok)
    chal = r.header("WWW-Authenticate") or ""
    t.ok(r.status == 401 and 'error="invalid_token"' in chal and
         want_md in chal, "%s: 401 with WWW-Authenticate (%s: %s)" % (
             why, r.status, (r.json or {}).get("detail")))
    r = s.post("/api/v1/tokens", {"name": "x-" + why.replace(" ", "-"),
                                  "scope": "admin"}, token=tok)
    t.eq(r.status, 401, "%s: a write is 401" % why)
    r = m.call("whoami", token=tok)
    t.ok(r.status == 401 and 'error="invalid_token"' in
         (r.header("WWW-Authenticate") or ""), "%s: /mcp 401" % why)
t.eq(s.get("/api/v1/tokens").json["items"], tokens_before,
     "no refused token wrote a token")
t.eq(s.get("/api/v1/operations").json, ops_before,
     "no refused token wrote an operation")

# ---- the streams (slipway-stream) take the same tokens ---------------
w = wsclient.connect(s.port, "/ws/operations/nope",
                     {"Authorization": "Bearer " + alice})
m = w.recv()
t.eq(((m or {}).get("type"), (m or {}).get("status")), ("error", 404),
     "a provider token opens a stream (then a 404 for no operation)")
w.close()
for why in ("expired", "HS256 with the public key", "unknown kid"):
    try:
        wsclient.connect(s.port, "/ws/operations/nope",
                         {"Authorization": "Bearer " + bad[why]}).close()
        status = 101
    except wsclient.Refused as refusal:
        status = refusal.status
    t.eq(status, 401, "%s: a stream is refused before the upgrade" % why)

# ---- key rotation at the provider ------------------------------------
new_kid = provider.post("/test/rotate")["kid"]
rotated = provider_token("alice", "alice-secret")
t.eq(header_of(rotated).get("kid"), new_kid,
     "the provider signs with its new key")
# Each worker refreshes on a kid miss at most once per 5 s: the
# unknown-kid cases above may have just used that turn.
t.ok(wait_for(lambda: s.get("/api/v1/whoami", token=rotated).status == 200,
              timeout=60), "a token of the new key is accepted (kid miss)")
t.ok(wait_for(lambda: all(s.get("/api/v1/version", token=rotated).status
                          == 200 for _ in range(6)), timeout=60),
     "every worker picks up the new key")
leaks = [name for name in os.listdir(os.path.join(s.state, "logs"))
         for tok in (alice, bob, rotated)
         if tok.split(".")[2][:40] in s.log_text(name)]
t.ok(not leaks, "no provider token in any log (%s)" % leaks)
s.stop()

# ---- provider down, nothing cached -----------------------------------
# A second Slipway that has asked nothing yet; its token was issued
# while the provider was up.
s2 = Stack(t)
still_good = provider_token("alice", "alice-secret",
                            res="http://127.0.0.1:%d" % s2.port)
provider.stop()
r = s2.get("/api/v1/whoami", token=still_good)
t.eq(r.status, 401, "provider down and a cold cache: 401 (fails closed)")
t.ok("keys cannot be fetched" in ((r.json or {}).get("detail") or ""),
     "the detail says the keys cannot be fetched")
t.eq(s2.get("/api/v1/whoami").status, 200,
     "Slipway tokens still work while the provider is down")
s2.stop()
t.done()
