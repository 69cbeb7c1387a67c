// jwt-forge.mjs: sign the tokens a provider would never issue, for the
// negative cases of t/47-oidc.t.  Reads one JSON request on stdin:
//   {"jwk": <private JWK or null>, "header": {...}, "claims": {...},
//    "how": "sign" | "none" | "hmac-public" | "garble"}
// and prints the compact token.  "sign" signs with jwk by header.alg
// (RS256 or ES256, ES256 as raw r||s as JWS has it); "none" leaves the
// signature empty; "hmac-public" signs HS256 with the PEM of jwk's
// public key as the secret (the algorithm-confusion attack); "garble"
// signs, then flips a bit of the signature.
import * as crypto from "node:crypto";

const b64 = (b) => Buffer.from(b).toString("base64url");
let input = "";
process.stdin.on("data", (d) => { input += d; });
process.stdin.on("end", () => {
  const req = JSON.parse(input);
  const head = b64(JSON.stringify(req.header));
  const body = b64(JSON.stringify(req.claims));
  const data = `${head}.${body}`;
  let sig = Buffer.alloc(0);
  if (req.how === "hmac-public") {
    const pub = crypto.createPublicKey({ key: req.jwk, format: "jwk" })
      .export({ type: "spki", format: "pem" });
    sig = crypto.createHmac("sha256", pub).update(data).digest();
  } else if (req.how !== "none") {
    const key = crypto.createPrivateKey({ key: req.jwk, format: "jwk" });
    sig = req.header.alg === "ES256"
      ? crypto.sign("sha256", Buffer.from(data),
                    { key, dsaEncoding: "ieee-p1363" })
      : crypto.sign("sha256", Buffer.from(data), key);
    if (req.how === "garble") sig[sig.length - 5] ^= 0x01;
  }
  process.stdout.write(`${data}.${b64(sig)}\n`);
});
