"""oidcop.py: the suite's OpenID provider (t/lib/oidc-provider.mjs, the npm
package oidc-provider on loopback) as tests use it: start it with its keys
in a folder of the test's, post to its /test hooks, ask its token endpoint
for a person's access token (client_credentials with a resource), stop."""
import atexit
import base64
import json
import os
import subprocess
import tempfile
import urllib.parse
import urllib.request

from harness import Stack

LIB = os.path.dirname(os.path.abspath(__file__))


class Provider:
    def __init__(self, t, tmp):
        self.proc = subprocess.Popen(
            ["node", os.path.join(LIB, "oidc-provider.mjs"),
             os.path.join(tmp, "keys.json")], stdout=subprocess.PIPE,
            stderr=open(os.path.join(tmp, "op.log"), "a"), text=True)
        # Gone with the test, whichever way it ends: a provider left
        # running would outlive the suite.
        atexit.register(self.stop)
        line = self.proc.stdout.readline()
        if not line:
            t.bail("the OpenID provider did not start")
        self.issuer = json.loads(line)["issuer"]

    def post(self, path, doc=None):
        """POST doc (JSON; none: an empty body) to one of its /test hooks;
        its answer as JSON, or None."""
        data = b"" if doc is None else json.dumps(doc).encode()
        req = urllib.request.Request(self.issuer + path, data=data,
                                     method="POST")
        with urllib.request.urlopen(req, timeout=30) as r:
            body = r.read()
        return json.loads(body) if body else None

    def token(self, who, secret, resource):
        """An access token for the client who (a person of its test
        accounts) for the resource."""
        body = urllib.parse.urlencode({"grant_type": "client_credentials",
                                       "scope": "slipway",
                                       "resource": resource}).encode()
        req = urllib.request.Request(self.issuer + "/token", data=body)
        basic = base64.b64encode(("%s:%s" % (who, secret)).encode())
        req.add_header("Authorization", "Basic " + basic.decode())
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.load(r)["access_token"]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


def ui_sign_in_stack(t, prefix):
    """A stack whose people sign in at the provider as the web UI's
    client (slipway-ui, scope write; the provider's group ml-team-b is
    team b's viewer), the provider told where the callback is.  Answers
    (tmp, provider, stack)."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    provider = Provider(t, tmp)
    conf = os.path.join(tmp, "slipway.conf")
    with open(conf, "w") as f:
        f.write("oidc.issuer = %s\noidc.client_id = slipway-ui\n"
                "oidc.client_secret = ui-secret\n"
                "oidc.user_claim = preferred_username\noidc.scope = write\n"
                "team.b.viewer = ml-team-b\n" % provider.issuer)
    os.environ["SLIPWAY_CONF"] = conf
    s = Stack(t)
    provider.post("/test/ui-client", {
        "redirect_uri": "http://127.0.0.1:%d/api/v1/login/oidc/callback" %
        s.port})
    return tmp, provider, s
