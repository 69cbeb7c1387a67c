"""S3 (rest-xml): buckets and objects, path-style and virtual-host-style.

CreateBucket/HeadBucket/DeleteBucket/ListBuckets/GetBucketLocation,
PutObject/GetObject/HeadObject/DeleteObject/DeleteObjects/ListObjectsV2
(and v1 listing).  Object bytes live under DIR/s3data; errors use S3's
bare <Error> document (NoSuchBucket, NoSuchKey, BucketNotEmpty, ...), and
HEAD errors have no body, as on S3.  Bucket names are one namespace over
every account and region the sandbox serves (BucketAlreadyExists for
another's name, AccessDenied for its bucket); a bucket's objects are its
account's and region's.
"""
import base64
import hashlib
import os
import re
import urllib.parse
import zlib
from xml.etree import ElementTree
from xml.sax.saxutils import escape

from ..gateway import AwsService
from ..protocols import AwsError, Response, RestXmlProtocol, http_date, iso

XMLNS = "http://s3.amazonaws.com/doc/2006-03-01/"
BUCKET_RE = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")


def _nobucket(b):
    return AwsError("NoSuchBucket", "The specified bucket does not exist", 404, extra={"BucketName": b})


def _xml(body, status=200, headers=None):
    return Response(status, '<?xml version="1.0" encoding="UTF-8"?>\n' + body, "application/xml", headers)


class S3Service(AwsService):
    name = "s3"
    protocol = RestXmlProtocol()

    def __init__(self, world):
        super().__init__(world)
        self.data_dir = os.path.join(world.state_dir, "s3data")

    # --- routing -------------------------------------------------------------
    def _split(self, req):
        host = (req.host or "").split(":")[0].lower()
        bucket = None
        for marker in (".s3.", ".s3-"):
            if marker in host:
                bucket = host.split(marker)[0]
        if bucket is None and host.endswith(".localhost"):
            bucket = host[: -len(".localhost")]
        path = req.raw_path
        if bucket is not None:
            key = urllib.parse.unquote(path[1:]) if len(path) > 1 else None
            return bucket, key
        parts = path.lstrip("/").split("/", 1)
        bucket = urllib.parse.unquote(parts[0]) or None
        key = urllib.parse.unquote(parts[1]) if len(parts) > 1 and parts[1] != "" else None
        return bucket, key

    def parse(self, ctx, req):
        bucket, key = self._split(req)
        q = req.query
        m = req.method
        params = {"Bucket": bucket, "Key": key}
        if bucket is None:
            if m == "GET":
                return "ListBuckets", {}
            raise AwsError("MethodNotAllowed", "The specified method is not allowed against this resource.", 405)
        if key is None:
            if m == "PUT" and not q:
                return "CreateBucket", params
            if m == "HEAD":
                return "HeadBucket", params
            if m == "DELETE" and not q:
                return "DeleteBucket", params
            if m == "GET" and "location" in q:
                return "GetBucketLocation", params
            if m == "GET" and q.get("list-type") == "2":
                return "ListObjectsV2", params
            if m == "GET" and not (set(q) - {"prefix", "delimiter", "marker", "max-keys", "encoding-type"}):
                return "ListObjects", params
            if m == "POST" and "delete" in q:
                return "DeleteObjects", params
            raise AwsError("NotImplemented", "A header you provided implies functionality that is not "
                           "implemented", 501)
        if m == "PUT" and not q:
            if req.header("x-amz-copy-source"):
                return "CopyObject", params
            return "PutObject", params
        if m == "GET" and not (set(q) - {"response-content-type", "partNumber", "versionId"}):
            return "GetObject", params
        if m == "HEAD":
            return "HeadObject", params
        if m == "DELETE" and not q:
            return "DeleteObject", params
        raise AwsError("NotImplemented", "A header you provided implies functionality that is not implemented", 501)

    def validate(self, ctx, op, params):
        pass

    def dispatch(self, ctx, op, params):
        ctx.log_params = {k: v for k, v in params.items() if v is not None}
        return getattr(self, "op_" + op)(ctx, params)

    def render_error(self, err, rid, req):
        return self.protocol.error(err, rid, head=(req.method == "HEAD"))

    # --- buckets ---------------------------------------------------------------
    def _bucket(self, name):
        b = self.store.get("s3:buckets", name or "")
        if b is None and self.store.get("s3names", name or ""):
            # another account's (or region's) bucket: no bucket policy grants it here
            raise AwsError("AccessDenied", "Access Denied", 403)
        if b is None:
            raise _nobucket(name)
        return b

    def op_ListBuckets(self, ctx, p):
        items = "".join("<Bucket><Name>%s</Name><CreationDate>%s</CreationDate><BucketRegion>%s"
                        "</BucketRegion></Bucket>" % (escape(b["Name"]), iso(b["CreationDate"]), b["Region"])
                        for b in sorted(self.store.values("s3:buckets"), key=lambda b: b["Name"]))
        return _xml('<ListAllMyBucketsResult xmlns="%s"><Owner><ID>%s</ID><DisplayName>sandbox</DisplayName>'
                    '</Owner><Buckets>%s</Buckets></ListAllMyBucketsResult>' % (XMLNS, self.world.account, items))

    def op_CreateBucket(self, ctx, p):
        name = p["Bucket"]
        if not BUCKET_RE.match(name) or ".." in name:
            raise AwsError("InvalidBucketName", "The specified bucket is not valid.", 400, extra={"BucketName": name})
        constraint = None
        if ctx.req.body.strip():
            try:
                root = ElementTree.fromstring(ctx.req.body)
                for el in root.iter():
                    if el.tag.endswith("LocationConstraint"):
                        constraint = (el.text or "").strip() or None
            except ElementTree.ParseError:
                raise AwsError("MalformedXML", "The XML you provided was not well-formed or did not "
                               "validate against our published schema", 400)
        region = self.world.region
        if region != "us-east-1" and constraint is None:
            raise AwsError("IllegalLocationConstraintException", "The unspecified location constraint is "
                           "incompatible for the region specific endpoint this request was sent to.", 400)
        if constraint is not None and constraint != region:
            raise AwsError("IllegalLocationConstraintException", "The %s location constraint is incompatible "
                           "for the region specific endpoint this request was sent to." % constraint, 400)
        owner = self.store.get("s3names", name)     # one namespace for every account
        if self.store.get("s3:buckets", name) or (owner and owner[0] == self.world.account):
            raise AwsError("BucketAlreadyOwnedByYou", "Your previous request to create the named bucket "
                           "succeeded and you already own it.", 409, extra={"BucketName": name})
        if owner:
            raise AwsError("BucketAlreadyExists", "The requested bucket name is not available. The "
                           "bucket namespace is shared by all users of the system. Please select a "
                           "different name and try again.", 409, extra={"BucketName": name})
        self.store.put("s3names", name, [self.world.account, region])
        self.store.put("s3:buckets", name, {"Name": name, "CreationDate": self.clock.now(), "Region": region})
        os.makedirs(os.path.join(self.data_dir, name), exist_ok=True)
        return Response(200, b"", None, {"Location": "/" + name})

    def op_HeadBucket(self, ctx, p):
        b = self._bucket(p["Bucket"])
        return Response(200, b"", None, {"x-amz-bucket-region": b["Region"]})

    def op_GetBucketLocation(self, ctx, p):
        b = self._bucket(p["Bucket"])
        loc = "" if b["Region"] == "us-east-1" else b["Region"]
        return _xml('<LocationConstraint xmlns="%s">%s</LocationConstraint>' % (XMLNS, loc))

    def op_DeleteBucket(self, ctx, p):
        b = self._bucket(p["Bucket"])
        if self.store.all("s3:obj:" + b["Name"]):
            raise AwsError("BucketNotEmpty", "The bucket you tried to delete is not empty", 409,
                           extra={"BucketName": b["Name"]})
        self.store.delete("s3:buckets", b["Name"])
        self.store.delete("s3names", b["Name"])
        try:
            os.rmdir(os.path.join(self.data_dir, b["Name"]))
        except OSError:
            pass
        return Response(204, b"")

    # --- objects ---------------------------------------------------------------
    def _path(self, bucket, key):
        return os.path.join(self.data_dir, bucket, hashlib.sha256(key.encode("utf-8")).hexdigest())

    def op_PutObject(self, ctx, p):
        b = self._bucket(p["Bucket"])
        key = p["Key"]
        if len(key.encode("utf-8")) > 1024:
            raise AwsError("KeyTooLongError", "Your key is too long", 400)
        body = ctx.req.body
        md5 = hashlib.md5(body).digest()
        given = ctx.req.header("content-md5")
        if given:
            try:
                if base64.b64decode(given) != md5:
                    raise AwsError("BadDigest", "The Content-MD5 you specified did not match what we received.", 400)
            except (ValueError, TypeError):
                raise AwsError("InvalidDigest", "The Content-MD5 you specified was invalid.", 400)
        os.makedirs(os.path.join(self.data_dir, b["Name"]), exist_ok=True)
        path = self._path(b["Name"], key)
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(body)
        os.replace(tmp, path)
        etag = '"%s"' % md5.hex()
        meta = {h[len("x-amz-meta-"):]: v for h, v in ctx.req.headers if h.lower().startswith("x-amz-meta-")}
        rec = {"Key": key, "Size": len(body), "ETag": etag, "LastModified": self.clock.now(),
               "ContentType": ctx.req.header("content-type") or "binary/octet-stream", "Metadata": meta}
        self.store.put("s3:obj:" + b["Name"], key, rec)
        ctx.log_params = {"Bucket": b["Name"], "Key": key, "Size": len(body)}
        return Response(200, b"", None, {"ETag": etag})

    def write_object(self, bucket, key, body, when):
        """An object written by a workload on a Mountpoint volume (not a
        request to the API): False when the bucket does not exist."""
        if self.store.get("s3:buckets", bucket) is None:
            return False
        os.makedirs(os.path.join(self.data_dir, bucket), exist_ok=True)
        with open(self._path(bucket, key), "wb") as f:
            f.write(body)
        self.store.put("s3:obj:" + bucket, key, {
            "Key": key, "Size": len(body), "ETag": '"%s"' % hashlib.md5(body).hexdigest(),
            "LastModified": when, "ContentType": "binary/octet-stream", "Metadata": {}})
        return True

    def op_CopyObject(self, ctx, p):
        b = self._bucket(p["Bucket"])
        src = urllib.parse.unquote(ctx.req.header("x-amz-copy-source")).lstrip("/")
        sb, _, sk = src.partition("/")
        srec = self._obj(sb, sk)
        with open(self._path(sb, sk), "rb") as f:
            data = f.read()
        path = self._path(b["Name"], p["Key"])
        with open(path, "wb") as f:
            f.write(data)
        rec = dict(srec, Key=p["Key"], LastModified=self.clock.now())
        self.store.put("s3:obj:" + b["Name"], p["Key"], rec)
        return _xml('<CopyObjectResult><LastModified>%s</LastModified><ETag>%s</ETag></CopyObjectResult>' % (
            iso(rec["LastModified"]), escape(rec["ETag"])))

    def _obj(self, bucket, key):
        self._bucket(bucket)
        rec = self.store.get("s3:obj:" + bucket, key)
        if rec is None:
            raise AwsError("NoSuchKey", "The specified key does not exist.", 404, extra={"Key": key})
        return rec

    def _obj_headers(self, rec):
        h = {"ETag": rec["ETag"], "Last-Modified": http_date(rec["LastModified"]),
             "Content-Type": rec["ContentType"], "Accept-Ranges": "bytes"}
        for k, v in rec.get("Metadata", {}).items():
            h["x-amz-meta-" + k] = v
        return h

    def op_GetObject(self, ctx, p):
        rec = self._obj(p["Bucket"], p["Key"])
        with open(self._path(p["Bucket"], p["Key"]), "rb") as f:
            data = f.read()
        headers = self._obj_headers(rec)
        rng = ctx.req.header("range")
        status = 200
        if rng:
            m = re.match(r"^bytes=(\d*)-(\d*)$", rng.strip())
            if m and (m.group(1) or m.group(2)):
                size = len(data)
                if m.group(1):
                    start = int(m.group(1))
                    end = int(m.group(2)) if m.group(2) else size - 1
                else:
                    start = max(0, size - int(m.group(2)))
                    end = size - 1
                if start >= size:
                    raise AwsError("InvalidRange", "The requested range is not satisfiable", 416)
                end = min(end, size - 1)
                data = data[start:end + 1]
                headers["Content-Range"] = "bytes %d-%d/%d" % (start, end, size)
                status = 206
        ctype = ctx.req.query.get("response-content-type")
        if ctype:
            headers["Content-Type"] = ctype
        resp = Response(status, data, None, headers)
        return resp

    def op_HeadObject(self, ctx, p):
        rec = self._obj(p["Bucket"], p["Key"])
        h = self._obj_headers(rec)
        h["Content-Length"] = str(rec["Size"])
        return Response(200, b"", None, h)

    def op_DeleteObject(self, ctx, p):
        self._bucket(p["Bucket"])
        self._delete_key(p["Bucket"], p["Key"])
        return Response(204, b"")

    def _delete_key(self, bucket, key):
        if self.store.get("s3:obj:" + bucket, key) is not None:
            self.store.delete("s3:obj:" + bucket, key)
            try:
                os.unlink(self._path(bucket, key))
            except OSError:
                pass

    def _body_checksum(self, ctx):
        """DeleteObjects needs Content-MD5 or an x-amz-checksum-* header
        (S3: "Missing required header for this request: Content-MD5"),
        and the one given must match the body."""
        body = ctx.req.body or b""
        md5 = ctx.req.header("content-md5")
        sums = {"sha256": lambda b: hashlib.sha256(b).digest(),
                "sha1": lambda b: hashlib.sha1(b).digest(),
                "crc32": lambda b: zlib.crc32(b).to_bytes(4, "big")}
        given = [(a, ctx.req.header("x-amz-checksum-" + a)) for a in ("sha256", "sha1", "crc32", "crc32c",
                                                                      "crc64nvme")]
        given = [(a, v) for a, v in given if v]
        if not md5 and not given:
            raise AwsError("InvalidRequest", "Missing required header for this request: Content-MD5", 400)
        try:
            if md5 and base64.b64decode(md5, validate=True) != hashlib.md5(body).digest():
                raise AwsError("BadDigest", "The Content-MD5 you specified did not match what we received.", 400)
            for a, v in given:
                if a in sums and base64.b64decode(v, validate=True) != sums[a](body):
                    raise AwsError("BadDigest", "The %s you specified did not match the calculated checksum."
                                   % a.upper(), 400)
        except (ValueError, TypeError):
            raise AwsError("InvalidDigest", "The Content-MD5 you specified was invalid.", 400)

    def op_DeleteObjects(self, ctx, p):
        self._bucket(p["Bucket"])
        self._body_checksum(ctx)
        try:
            root = ElementTree.fromstring(ctx.req.body)
        except ElementTree.ParseError:
            root = None
        if root is None or not root.tag.endswith("Delete"):
            raise AwsError("MalformedXML", "The XML you provided was not well-formed or did not validate "
                           "against our published schema", 400)
        objs = [el for el in root if el.tag.endswith("Object")]
        keys = [next((k.text or "" for k in o if k.tag.endswith("Key")), None) for o in objs]
        if not keys or len(keys) > 1000 or any(k is None or k == "" for k in keys):
            raise AwsError("MalformedXML", "The XML you provided was not well-formed or did not validate "
                           "against our published schema", 400)
        quiet = any((el.text or "").lower() == "true" for el in root if el.tag.endswith("Quiet"))
        for k in keys:
            self._delete_key(p["Bucket"], k)
        ctx.log_params = {"Bucket": p["Bucket"], "Keys": keys[:50]}
        deleted = "" if quiet else "".join("<Deleted><Key>%s</Key></Deleted>" % escape(k) for k in keys)
        return _xml('<DeleteResult xmlns="%s">%s</DeleteResult>' % (XMLNS, deleted))

    def _list(self, bucket, prefix, delimiter, start_after):
        keys = sorted(k for k in self.store.all("s3:obj:" + bucket) if k.startswith(prefix) and k > start_after)
        contents, prefixes = [], []
        for k in keys:
            if delimiter:
                rest = k[len(prefix):]
                idx = rest.find(delimiter)
                if idx >= 0:
                    cp = prefix + rest[:idx + len(delimiter)]
                    if cp not in prefixes:
                        prefixes.append(cp)
                    continue
            contents.append(k)
        entries = [("key", k) for k in contents] + [("prefix", cp) for cp in prefixes]
        entries.sort(key=lambda e: e[1])
        return entries

    def _list_common(self, ctx, p, v2):
        b = self._bucket(p["Bucket"])
        q = ctx.req.query
        prefix = q.get("prefix", "")
        delimiter = q.get("delimiter", "")
        try:
            max_keys = int(q.get("max-keys", "1000"))
        except ValueError:
            raise AwsError("InvalidArgument", "Provided max-keys not an integer or within integer range", 400)
        if max_keys < 0:
            raise AwsError("InvalidArgument", "Argument maxKeys must be an integer between 0 and 2147483647", 400)
        max_keys = min(max_keys, 1000)   # S3 answers at most 1000 keys a page
        enc = q.get("encoding-type") == "url"

        def e(s):
            return escape(urllib.parse.quote(s, safe="/") if enc else s)
        if v2:
            token = q.get("continuation-token")
            start = q.get("start-after", "")
            if token:
                # Opaque, as S3's: the bucket and the last key, checked.
                try:
                    tag, tb, start = base64.b64decode(token, validate=True).decode("utf-8").split("\n", 2)
                except (ValueError, UnicodeDecodeError):
                    tag, tb = None, None
                if tag != "1" or tb != b["Name"]:
                    raise AwsError("InvalidArgument", "The continuation token provided is incorrect", 400,
                                   extra={"ArgumentName": "continuation-token", "ArgumentValue": token})
        else:
            start = q.get("marker", "")
        entries = self._list(b["Name"], prefix, delimiter, start)
        page_entries = entries[:max_keys]
        truncated = len(entries) > max_keys
        objs = self.store.all("s3:obj:" + b["Name"])
        parts = ['<ListBucketResult xmlns="%s"><Name>%s</Name><Prefix>%s</Prefix>' % (XMLNS, escape(b["Name"]), e(prefix))]
        if v2:
            parts.append("<KeyCount>%d</KeyCount>" % len(page_entries))
            if q.get("continuation-token"):
                parts.append("<ContinuationToken>%s</ContinuationToken>" % escape(q["continuation-token"]))
            if q.get("start-after"):
                parts.append("<StartAfter>%s</StartAfter>" % e(q["start-after"]))
        else:
            parts.append("<Marker>%s</Marker>" % e(start))
        parts.append("<MaxKeys>%d</MaxKeys>" % max_keys)
        if delimiter:
            parts.append("<Delimiter>%s</Delimiter>" % e(delimiter))
        if enc:
            parts.append("<EncodingType>url</EncodingType>")
        parts.append("<IsTruncated>%s</IsTruncated>" % ("true" if truncated else "false"))
        if truncated and page_entries:
            last = page_entries[-1][1]
            if v2:
                parts.append("<NextContinuationToken>%s</NextContinuationToken>" % base64.b64encode(
                    ("1\n%s\n%s" % (b["Name"], last)).encode("utf-8")).decode())
            elif delimiter:
                parts.append("<NextMarker>%s</NextMarker>" % e(last))
        for kind, name in page_entries:
            if kind == "key":
                o = objs[name]
                parts.append("<Contents><Key>%s</Key><LastModified>%s</LastModified><ETag>%s</ETag>"
                             "<Size>%d</Size><StorageClass>STANDARD</StorageClass></Contents>" % (
                                 e(name), iso(o["LastModified"]), escape(o["ETag"]), o["Size"]))
        for kind, name in page_entries:
            if kind == "prefix":
                parts.append("<CommonPrefixes><Prefix>%s</Prefix></CommonPrefixes>" % e(name))
        parts.append("</ListBucketResult>")
        return _xml("".join(parts))

    def op_ListObjectsV2(self, ctx, p):
        return self._list_common(ctx, p, True)

    def op_ListObjects(self, ctx, p):
        return self._list_common(ctx, p, False)

    def snapshot(self):
        return {"buckets": {b: len(self.store.all("s3:obj:" + b)) for b in self.store.all("s3:buckets")}}

    def reset(self):
        import shutil
        shutil.rmtree(self.data_dir, ignore_errors=True)
