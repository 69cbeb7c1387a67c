#!/usr/bin/python3
"""STS SourceIdentity as AWS has it: AssumeRole accepts one of 2..64 of
[\\w+=,.@-] not starting with "aws:", only when the role's trust policy
allows sts:SetSourceIdentity; the session keeps it, passes it on when it
assumes a role in turn, cannot change it, and the request log names it with
every request the session signs (userIdentity.sessionContext.sourceIdentity),
as CloudTrail does."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import Sandbox  # noqa: E402

t = T()
sb = Sandbox(speed=600)
acct = "123456789012"
root = {"AWS": "arn:aws:iam::%s:root" % acct}


def role(name, actions):
    doc = {"Version": "2012-10-17",
           "Statement": [{"Effect": "Allow", "Principal": root, "Action": actions}]}
    sb.ok_query("iam", {"Action": "CreateRole", "RoleName": name,
                        "AssumeRolePolicyDocument": json.dumps(doc)})
    return "arn:aws:iam::%s:role/%s" % (acct, name)


def assume(arn, session, source=None, **kw):
    p = {"Action": "AssumeRole", "RoleArn": arn, "RoleSessionName": session}
    if source is not None:
        p["SourceIdentity"] = source
    return sb.aws_query("sts", p, **kw)


def code(r):
    m = re.search(r"<Code>(.*?)</Code>", r.text)
    return r.status, m.group(1) if m else None


def creds(r):
    g = lambda k: re.search(r"<%s>(.*?)</%s>" % (k, k), r.text).group(1)  # noqa: E731
    return (g("AccessKeyId"), g("SecretAccessKey")), g("SessionToken")


people = role("people", ["sts:AssumeRole", "sts:SetSourceIdentity"])
plain = role("plain", "sts:AssumeRole")

# Acceptance, and the identity carried by the session's requests.
r = assume(people, "alice-example.com", "alice@example.com")
t.eq(r.status, 200, "AssumeRole with a SourceIdentity the trust policy allows")
key, token = creds(r)
who = sb.aws_query("sts", {"Action": "GetCallerIdentity"}, creds=key, token=token)
t.ok(who.status == 200 and "assumed-role/people/alice-example.com" in who.text,
     "the session's credentials sign requests")
sb.aws_query("ec2", {"Action": "DescribeVpcs"}, creds=key, token=token)
logged = [e for e in sb.requests() if e.get("principal", "").endswith("/alice-example.com")]
t.eq(sorted((e["service"], e["operation"]) for e in logged), [("ec2", "DescribeVpcs"), ("sts", "GetCallerIdentity")],
     "both requests of the session are logged under its ARN")
t.ok(all(e.get("userIdentity", {}).get("sessionContext", {}).get("sourceIdentity") == "alice@example.com"
         for e in logged) and len(logged) == 2, "each names the source identity, as CloudTrail does")
t.ok(all(e["userIdentity"]["sessionContext"]["sessionIssuer"]["arn"] == people and
         e["userIdentity"]["type"] == "AssumedRole" for e in logged), "and the role that issued the session")
ar = sb.requests(service="sts", operation="AssumeRole")[-1]
t.eq(ar["params"].get("SourceIdentity"), "alice@example.com", "the AssumeRole itself logs the SourceIdentity")

# A session without a SourceIdentity names none.
r = assume(people, "nobody")
k2, t2 = creds(r)
sb.aws_query("ec2", {"Action": "DescribeVpcs"}, creds=k2, token=t2)
e = sb.requests(service="ec2", operation="DescribeVpcs")[-1]
t.ok("sourceIdentity" not in e["userIdentity"]["sessionContext"], "no source identity when none was set")

# Refusals: the model's rules, the reserved prefix, the trust policy.
for bad, why in (("a", "shorter than 2"), ("x" * 65, "longer than 64"), ("bob smith", "a space"),
                 ("bob/smith", "a slash")):
    t.eq(code(assume(people, "s1", bad)), (400, "ValidationError"), "SourceIdentity with %s is refused" % why)
t.eq(code(assume(people, "s1", "aws:alice")), (400, "ValidationError"), "a SourceIdentity starting aws: is refused")
t.eq(code(assume(people, "s1", "AWS:alice")), (400, "ValidationError"), "in any case")
t.eq(code(assume(people, "s1", "x" * 64)), (200, None), "64 characters are accepted")
t.eq(code(assume(people, "s1", "a+b=c,d.e@f_g-h")), (200, None), "every allowed character is accepted")
r = assume(plain, "s1", "alice")
t.eq(code(r), (403, "AccessDenied"), "a trust policy without sts:SetSourceIdentity refuses it")
t.ok("sts:SetSourceIdentity" in r.text, "the refusal names sts:SetSourceIdentity")
e = sb.requests(service="sts", operation="AssumeRole")[-1]
t.eq((e["error"], e["params"].get("SourceIdentity")), ("AccessDenied", "alice"),
     "the refused request is logged with the SourceIdentity it asked for")
t.eq(code(assume(plain, "s1")), (200, None), "the same role is assumed without a SourceIdentity")

# Role chaining: the identity is passed on and cannot be changed.
r = assume(people, "hop", creds=key, token=token)
t.eq(r.status, 200, "the session assumes a role in turn")
k3, t3 = creds(r)
sb.aws_query("ec2", {"Action": "DescribeVpcs"}, creds=k3, token=t3)
e = sb.requests(service="ec2", operation="DescribeVpcs")[-1]
t.eq(e["userIdentity"]["sessionContext"].get("sourceIdentity"), "alice@example.com",
     "the chained session keeps the source identity")
t.eq(code(assume(people, "hop", "mallory", creds=key, token=token)), (403, "AccessDenied"),
     "a chained session cannot change it")
t.eq(code(assume(plain, "hop", creds=key, token=token)), (403, "AccessDenied"),
     "nor carry it to a role whose trust policy does not allow sts:SetSourceIdentity")
t.eq(sb.stop(), 0, "sandbox stops cleanly")
t.done()
