"""Principals and credentials known to the sandbox.

The sandbox's own long-term key pair is generated on first start and kept
in the state directory.  STS AssumeRole / AssumeRoleWithWebIdentity issue
session credentials (ASIA... + session token), and the control endpoint can
add extra IAM users, e.g. to test a principal without an EKS access entry.
Every credential names the account it belongs to ("account"; a record
without one is the default account's): the gateway serves a request in
that account.  Each declared account has its own base user and keys.
"""
import base64
import os
import secrets
import string

UPPER = string.ascii_uppercase + "234567"


def rand_id(prefix, n=16):
    return prefix + "".join(secrets.choice(UPPER) for _ in range(n))


def rand_secret(n=40):
    alphabet = string.ascii_letters + string.digits + "+/"
    return "".join(secrets.choice(alphabet) for _ in range(n))


class Identity:
    SPACE = "creds"

    def __init__(self, store, account_id):
        self.store = store
        self.account = account_id

    def ensure_base(self, user="slipway-sandbox", account=None):
        account = account or self.account
        key = "base_credentials" if account == self.account else \
            "base_credentials:" + account
        meta = self.store.get("meta", key)
        if meta and self.store.get(self.SPACE, meta["access_key_id"]):
            return meta
        akid = rand_id("AKIA")
        rec = self._user_record(akid, rand_secret(), user, account)
        self.store.put(self.SPACE, akid, rec)
        meta = {"access_key_id": akid, "secret_access_key": rec["secret"]}
        self.store.put("meta", key, meta)
        return meta

    def _user_record(self, akid, secret, user, account=None):
        account = account or self.account
        return {"akid": akid, "secret": secret, "token": None, "expires": None,
                "arn": "arn:aws:iam::%s:user/%s" % (account, user),
                "principal_arn": "arn:aws:iam::%s:user/%s" % (account, user),
                "user_id": rand_id("AIDA", 17), "kind": "user", "name": user,
                "account": account}

    def account_of(self, rec):
        return (rec or {}).get("account") or self.account

    def add_user(self, user, account=None):
        akid = rand_id("AKIA")
        rec = self._user_record(akid, rand_secret(), user, account)
        self.store.put(self.SPACE, akid, rec)
        return rec

    def lookup(self, akid):
        return self.store.get(self.SPACE, akid or "")

    def issue_session(self, role_arn, session_name, now, duration=3600, source=None,
                      source_identity=None):
        role_name = role_arn.rsplit("/", 1)[-1]
        account = role_arn.split(":")[4] or self.account
        role_id = self.store.get("iam:roleids", role_arn) or rand_id("AROA", 17)
        self.store.put("iam:roleids", role_arn, role_id)
        akid = rand_id("ASIA")
        token = base64.b64encode(b"sandbox-session:" + os.urandom(96)).decode()
        rec = {"akid": akid, "secret": rand_secret(), "token": token,
               "expires": now + duration,
               "arn": "arn:aws:sts::%s:assumed-role/%s/%s" % (account, role_name, session_name),
               "principal_arn": role_arn, "user_id": "%s:%s" % (role_id, session_name),
               "kind": "assumed-role", "source": source, "account": account}
        if source_identity:
            rec["source_identity"] = source_identity
        self.store.put(self.SPACE, akid, rec)
        return rec

    def purge_expired(self, now):
        for akid, rec in list(self.store.all(self.SPACE).items()):
            if rec.get("expires") and rec["expires"] + 3600 < now:
                self.store.delete(self.SPACE, akid)
