"""Amazon EventBridge (json 1.1): PutEvents onto the account's event buses.

Every account has the bus "default"; more can be added through
/_sandbox/eventbridge/buses (the trimmed model has no CreateEventBus).  As
EventBridge does, an entry without Source, DetailType and Detail, with a
Detail that is not a JSON object, a Source starting with "aws." or on a bus
that does not exist fails on its own (ErrorCode in its result, counted in
FailedEntryCount) while the others are put; a request in which no entry has
all three of Source, DetailType and Detail fails whole with
ValidationException.  Put events are kept per bus and read through
/_sandbox/eventbridge/events.
"""
import json

from ..gateway import AwsService
from ..protocols import AwsError, JsonProtocol
from .util import new_uuid

MAX_ENTRY = 256 * 1024


class EventsService(AwsService):
    name = "events"
    protocol = JsonProtocol("AWSEvents")

    def _bus_arn(self, ctx, name):
        return "arn:aws:events:%s:%s:event-bus/%s" % (ctx.region, ctx.account, name)

    def buses(self, ctx=None):
        names = {"default"} | set(self.store.all("events:buses"))
        return sorted(names)

    def add_bus(self, name):
        self.store.put("events:buses", name, {"Name": name})

    def _bus_name(self, ctx, value):
        if not value:
            return "default"
        if value.startswith("arn:"):
            parts = value.split(":", 5)
            if (len(parts) < 6 or parts[3] != ctx.region or parts[4] != ctx.account or
                    not parts[5].startswith("event-bus/")):
                return None
            return parts[5][len("event-bus/"):]
        return value

    def _entry(self, ctx, e):
        """(None, stored event) or (ErrorCode, ErrorMessage)."""
        src, dtype, detail = e.get("Source"), e.get("DetailType"), e.get("Detail")
        if not src or not dtype or detail is None:
            return ("InvalidArgument", "Parameters Source, DetailType and Detail are required "
                    "for each entry."), None
        if src.startswith("aws."):
            return ("NotAuthorizedForSourceException", "Not authorized for the source."), None
        try:
            parsed = json.loads(detail)
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict):
            return ("MalformedDetail", "Detail is malformed."), None
        if len(json.dumps(e)) > MAX_ENTRY:
            return ("InvalidArgument", "Total size of the entries in the request is over "
                    "the limit."), None
        bus = self._bus_name(ctx, e.get("EventBusName"))
        if bus is None or bus not in self.buses():
            return ("InvalidArgument", "Event bus %s does not exist." % e.get("EventBusName")), \
                None
        return None, {"Source": src, "DetailType": dtype, "Detail": detail, "Bus": bus,
                      "Resources": e.get("Resources") or [], "Time": self.clock.now()}

    def op_PutEvents(self, ctx, p):
        entries = p.get("Entries") or []
        if not any(e.get("Source") and e.get("DetailType") and e.get("Detail") is not None
                   for e in entries):
            raise AwsError("ValidationException", "Parameters Source, DetailType and Detail "
                           "are required for at least one entry.", 400)
        results, failed = [], 0
        for e in entries:
            err, ev = self._entry(ctx, e)
            if err is not None:
                failed += 1
                results.append({"ErrorCode": err[0], "ErrorMessage": err[1]})
                continue
            eid = new_uuid()
            ev["EventId"] = eid
            self.store.put("events:put", eid, ev)
            results.append({"EventId": eid})
        return {"FailedEntryCount": failed, "Entries": results}

    def events(self, bus=None):
        out = [e for e in self.store.values("events:put") if bus is None or e["Bus"] == bus]
        return sorted(out, key=lambda e: e["Time"])
