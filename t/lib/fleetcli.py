"""fleetcli.py: the user CLI (`slipway`) as the fleet tests drive it, in a
context of the stack's server and token kept in tmp, and the sandbox's
request log as the count of writes a plan or apply sent.

    f = FleetCli(stack, tmp)
    rc, out, err = f.cli("plan", "-f", f.write("fleet.yaml", text))
    rc, doc, err = f.cli_json("export")
    seq = f.last_seq(); ...; f.writes_since(seq)  # [(service, operation)]
"""
import json
import os
import subprocess

from harness import SLIPWAY, sandbox_requests


class FleetCli:
    def __init__(self, stack, tmp):
        self.s = stack
        self.tmp = tmp
        self.env = dict(os.environ,
                        SLIPWAY_CONTEXTS=os.path.join(tmp, "ctx.json"),
                        SLIPWAY_SERVER="http://127.0.0.1:%d" % stack.port,
                        SLIPWAY_TOKEN=stack.token)

    def cli(self, *args):
        r = subprocess.run([SLIPWAY] + list(args), capture_output=True,
                           text=True, timeout=600, env=self.env,
                           stdin=subprocess.DEVNULL)
        return r.returncode, r.stdout, r.stderr

    def cli_json(self, *args):
        rc, out, err = self.cli(*(list(args) + ["-o", "json"]))
        try:
            return rc, json.loads(out), err
        except ValueError:
            return rc, None, err + out

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def last_seq(self):
        return max([e.get("seq", 0) for e in sandbox_requests(self.s)]
                   or [0])

    def writes_since(self, seq):
        """The AWS and Kubernetes writes the sandbox logged after seq."""
        return [(e["service"], e["operation"]) for e in
                sandbox_requests(self.s, mutating=1, since=seq)
                if e["service"] != "control"]
