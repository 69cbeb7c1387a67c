"""Amazon SNS (query protocol): topics and Publish, as far as the model goes.

CreateTopic is idempotent by name (the same ARN back, or InvalidParameter when
the attributes differ); a name ending in .fifo needs FifoTopic=true and the
other way round.  Publish to a topic that does not exist is NotFound (404); a
FIFO topic needs MessageGroupId and, without ContentBasedDeduplication, a
MessageDeduplicationId, and a repeat of one within five minutes answers with
the first message's id without publishing again, as SNS does.  Published
messages are kept per topic and read through /_sandbox/sns/messages.
"""
import hashlib
import re

from ..gateway import AwsService
from ..models import unflatten
from ..protocols import AwsError, QueryProtocol
from .util import new_uuid

XMLNS = "http://sns.amazonaws.com/doc/2010-03-31/"
NAME = re.compile(r"^[A-Za-z0-9_-]{1,256}$")
DEDUP_WINDOW = 300.0


def _invalid(msg):
    return AwsError("InvalidParameter", "Invalid parameter: " + msg, 400)


def _not_found(msg="Topic does not exist"):
    return AwsError("NotFound", msg, 404)


class SnsService(AwsService):
    name = "sns"
    protocol = QueryProtocol("2010-03-31", XMLNS, internal_code="InternalError")

    def parse(self, ctx, req):
        op, flat = self.protocol.parse(req)
        return op, unflatten(flat)

    def model_params(self, op, params):
        return self.model.from_form(op, params)

    def _attrs(self, p):
        """Attributes.entry.N.key/value as a dict."""
        out = {}
        raw = p.get("Attributes") or {}
        entries = raw.get("entry") if isinstance(raw, dict) else None
        if isinstance(entries, dict):
            entries = [entries[k] for k in sorted(entries, key=lambda x: int(x))]
        for e in entries or []:
            if isinstance(e, dict) and "key" in e:
                out[e["key"]] = e.get("value", "")
        return out

    def _arn(self, ctx, name):
        return "arn:aws:sns:%s:%s:%s" % (ctx.region, ctx.account, name)

    def _topic(self, ctx, arn):
        if not arn:
            raise _invalid("TopicArn or TargetArn Reason: no value for required parameter")
        parts = arn.split(":")
        if len(parts) != 6 or parts[:3] != ["arn", "aws", "sns"] or not NAME.match(
                parts[5].replace(".fifo", "")):
            raise _invalid("TopicArn Reason: An ARN must have format "
                           "arn:<partition>:<service>:<region>:<account-id>:<resource>")
        if parts[3] != ctx.region:
            raise _invalid("TopicArn Reason: A %s ARN must be used in %s" % (
                parts[3], parts[3]))
        topic = self.store.get("sns:topics", arn)
        if topic is None:
            raise _not_found()
        return topic

    def op_CreateTopic(self, ctx, p):
        name = p.get("Name") or ""
        attrs = self._attrs(p)
        fifo = attrs.get("FifoTopic", "false").lower() == "true"
        base = name[:-5] if name.endswith(".fifo") else name
        if not NAME.match(base) or (name.endswith(".fifo") != fifo):
            raise _invalid("Topic Name" if not NAME.match(base) or not fifo else
                           "Fifo Topic names must end with .fifo and must be made up of only "
                           "uppercase and lowercase ASCII letters, numbers, underscores, and "
                           "hyphens, and must be between 1 and 256 characters long.")
        arn = self._arn(ctx, name)
        old = self.store.get("sns:topics", arn)
        if old is not None:
            if old["Attributes"] != attrs:
                raise _invalid("Attributes Reason: Topic already exists with different "
                               "attributes")
            return {"TopicArn": arn}
        self.store.put("sns:topics", arn, {"TopicArn": arn, "Name": name, "Attributes": attrs,
                                           "Fifo": fifo})
        return {"TopicArn": arn}

    def op_DeleteTopic(self, ctx, p):
        arn = p.get("TopicArn")
        if self.store.get("sns:topics", arn) is not None:
            self.store.delete("sns:topics", arn)
            for k in [k for k in self.store.all("sns:messages") if k.startswith(arn + "|")]:
                self.store.delete("sns:messages", k)
        return None

    def _fifo_dedup(self, topic, p, message):
        if not p.get("MessageGroupId"):
            raise _invalid("The MessageGroupId parameter is required for FIFO topics")
        dedup = p.get("MessageDeduplicationId")
        if not dedup:
            if topic["Attributes"].get("ContentBasedDeduplication", "false") != "true":
                raise _invalid("The topic should either have ContentBasedDeduplication "
                               "enabled or MessageDeduplicationId provided explicitly")
            dedup = hashlib.sha256(message.encode()).hexdigest()
        return dedup

    def op_Publish(self, ctx, p):
        if p.get("PhoneNumber"):
            raise _invalid("PhoneNumber Reason: SMS is not offered by this sandbox")
        arn = p.get("TopicArn") or p.get("TargetArn")
        topic = self._topic(ctx, arn)
        message = p.get("Message")
        if not message:
            raise _invalid("Empty message")
        subject = p.get("Subject")
        if subject is not None and (not subject or len(subject) > 100 or
                                    any(ord(c) < 32 or ord(c) > 126 for c in subject)):
            raise _invalid("Subject")
        now = self.clock.now()
        dedup = self._fifo_dedup(topic, p, message) if topic["Fifo"] else None
        if dedup is not None:
            seen = self.store.get("sns:dedup", arn + "|" + dedup)
            if seen is not None and now - seen["at"] < DEDUP_WINDOW:
                return {"MessageId": seen["id"], "SequenceNumber": seen["seq"]}
        mid = new_uuid()
        seq = "%020d" % (len(self.store.all("sns:messages")) + 1)
        self.store.put("sns:messages", "%s|%s" % (arn, mid), {
            "TopicArn": arn, "MessageId": mid, "Subject": subject, "Message": message,
            "MessageGroupId": p.get("MessageGroupId"), "MessageDeduplicationId": dedup,
            "Timestamp": now})
        out = {"MessageId": mid}
        if dedup is not None:
            self.store.put("sns:dedup", arn + "|" + dedup, {"id": mid, "seq": seq, "at": now})
            out["SequenceNumber"] = seq
        return out

    def messages(self, arn=None):
        """What was published (to arn, or every topic), oldest first."""
        out = [m for m in self.store.values("sns:messages")
               if arn is None or m["TopicArn"] == arn]
        return sorted(out, key=lambda m: m["Timestamp"])
