#!/usr/bin/python3
# 30-mcp-quick.t: a modern tools/call is answered without a document for
# its envelope (mcp/mcp.c quick_call: the members are found in the text,
# only the arguments are parsed, the answer is written as text).  Any
# request that way is unsure of goes the general way.  Both ways must
# answer alike, so each call here is sent twice: as a client writes it,
# and with one more top-level member whose key is written with an escape
# ("\u0078", that is "x"), which the general way ignores and the quick
# reader leaves to it.  Status, media type and every byte of the body
# must be the same.  Then requests only the general way can read: the
# ones each rule of the quick reader sends there.
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T
from harness import Stack
from mcp_raw import Mcp, MODERN, err_code

t = T()
s = Stack(t)
mcp = Mcp(s)
reader = s.cli("token", "create", "--scope", "read", "--name", "ro").strip()


def envelope(name, args=None, rid=1, meta=None):
    params = {"name": name, "_meta": meta or Mcp.meta()}
    if args is not None:
        params["arguments"] = args
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
            "params": params}


def send(raw, name, token="default"):
    return mcp.post(raw=raw, token=token, headers={
        "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call",
        "Mcp-Name": name})


def general(raw):
    """The same request with a member only the general way reads."""
    raw = raw.rstrip()
    return raw[:-1] + b',"\\u0078":0}'


def twice(what, msg, name, token="default", raw=None):
    raw = raw if raw is not None else json.dumps(msg).encode()
    a = send(raw, name, token)
    b = send(general(raw), name, token)
    same = (a.status, a.header("Content-Type"), a.body) == \
        (b.status, b.header("Content-Type"), b.body)
    if not same:
        t.diag("quick:   %d %s" % (a.status, a.body[:600]))
        t.diag("general: %d %s" % (b.status, b.body[:600]))
    t.ok(same and a.status == 200 and a.json is not None,
         "%s: the same answer both ways" % what)
    return a


r = twice("whoami, an integer id", envelope("whoami"), "whoami")
t.eq((r.json.get("id"), r.json["result"].get("resultType")), (1, "complete"),
     "the id is echoed and the result is complete")
sc = r.json["result"].get("structuredContent") or {}
t.eq(json.loads(r.json["result"]["content"][0]["text"]), sc,
     "the text item is the structuredContent's JSON")
t.ok("io.modelcontextprotocol/serverInfo" in r.json["result"]["_meta"],
     "_meta carries serverInfo")
twice("whoami, a string id", envelope("whoami", rid="call-7"), "whoami")
twice("whoami, a negative id", envelope("whoami", rid=-42), "whoami")
twice("whoami with empty arguments", envelope("whoami", {}), "whoami")
twice("whoami with a read-only token", envelope("whoami"), "whoami",
      token=reader)
twice("cluster_list", envelope("cluster_list"), "cluster_list")
twice("instance_type_list with arguments",
      envelope("instance_type_list", {"region": "us-east-1"}),
      "instance_type_list")
r = twice("cluster_get of no such cluster",
          envelope("cluster_get", {"name": "nope"}), "cluster_get")
t.ok(r.json["result"].get("isError") is True, "which is an isError result")
r = twice("cluster_create refused by validation",
          envelope("cluster_create", {"name": "Bad_Name", "instance_groups": [
              {"name": "w", "instance_type": "ml.g5.xlarge", "count": 1,
               "availability_zone": "us-east-1a"}]}), "cluster_create")
res = r.json["result"]
t.ok(res.get("isError") is True and
     res["content"][0]["text"].startswith("cluster_create failed: ") and
     json.loads(res["content"][1]["text"]) == res["structuredContent"],
     "isError: the summary, then the problem as text and structured")
t.ok(any(e.get("field") == "name"
         for e in res["structuredContent"].get("errors", [])),
     "the problem names the field")
twice("arguments with text past ASCII",
      envelope("cluster_get", {"name": "caf\u00e9-\u96f2"}), "cluster_get")
twice("a string with every JSON escape",
      envelope("cluster_get", {"name": "a\"b\\c/d\b\f\n\r\t\u0001"}),
      "cluster_get")
twice("a refused call by a read-only token",
      envelope("cluster_create", {"name": "x"}), "cluster_create",
      token=reader)
twice("white space everywhere", None, "whoami",
      raw=b' { "jsonrpc" : "2.0" ,\n"id":\t5 , "method":"tools/call",'
          b'"params":{ "name" : "whoami" , "_meta" : '
          + json.dumps(Mcp.meta()).encode() + b' } } ')

# The general way alone: each reads as it always did.
meta = json.dumps(Mcp.meta())
cases = [
    ("a duplicate name (the parser keeps the last)",
     '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":'
     '"cluster_list","name":"whoami","_meta":%s}}' % meta, "whoami", 200),
    ("an id with an exponent (not an integer)",
     '{"jsonrpc":"2.0","id":1e2,"method":"tools/call","params":{"name":'
     '"whoami","_meta":%s}}' % meta, "whoami", 400),
    ("an escaped tool name",
     '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":'
     '"who\\u0061mi","_meta":%s}}' % meta, "whoami", 200),
    ("arguments that are not an object",
     '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":'
     '"whoami","arguments":[1],"_meta":%s}}' % meta, "whoami", 200),
    ("a string that is not UTF-8",
     '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":'
     '"cluster_get","arguments":{"name":"\xff"},"_meta":%s}}' % meta,
     "cluster_get", 400),
    ("trailing data", '{"jsonrpc":"2.0","id":1,"method":"tools/call",'
     '"params":{"name":"whoami","_meta":%s}} x' % meta, "whoami", 400),
    ("a Mcp-Name that does not match",
     '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":'
     '"whoami","_meta":%s}}' % meta, "cluster_list", 400),
]
for what, text, name, status in cases:
    raw = text.encode("latin-1")
    r = send(raw, name)
    t.eq(r.status, status, "%s: %d" % (what, status))
r = send(cases[0][1].encode(), "whoami")
t.ok(r.json["result"]["structuredContent"].get("name") is not None,
     "the duplicate name called the last one (whoami)")
r = send(cases[1][1].encode(), "whoami")
t.eq(err_code(r), -32600, "an id that is not an integer: Invalid Request")
r = send(cases[3][1].encode(), "whoami")
t.eq(err_code(r), -32602, "arguments that are not an object: Invalid params")
r = send(cases[4][1].encode("latin-1"), "cluster_get")
t.eq(err_code(r), -32700, "text that is not UTF-8: Parse error")

# Nesting: the arguments are parsed where they lie, and refused at the
# depth the whole document would be.  Around the limit, both ways give
# the same answer, and the limit is inside the range.
seen = set()
for levels in range(26, 33):
    deep = "{}"
    for _ in range(levels - 1):
        deep = '{"a":%s}' % deep
    text = ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{'
            '"name":"cluster_get","arguments":{"name":"x","deep":%s},'
            '"_meta":%s}}' % (deep, meta)).encode()
    a, b = send(text, "cluster_get"), send(general(text), "cluster_get")
    t.eq((a.status, a.body), (b.status, b.body),
         "arguments nested %d deep: the same answer both ways (%d)" %
         (levels + 1, a.status))
    seen.add(a.status)
t.eq(sorted(seen), [200, 400], "the depth limit lies in that range")
t.done()
