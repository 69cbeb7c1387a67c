// oidc-provider.mjs: a real OpenID provider (the npm package
// oidc-provider) on loopback for the tests.  Usage:
//   node oidc-provider.mjs <keys.json>
// It prints one JSON line {issuer} once it listens, and writes its
// private signing keys (a JWK Set) to keys.json so a test can sign the
// tokens a provider would never issue (expired, wrong audience...).
//
// Clients stand for people: each may use the client_credentials grant,
// and its access tokens are JWTs for the resource the request names
// (resource indicators, RFC 8707), carrying the person's
// preferred_username, email and groups.  alice's are signed RS256,
// bob's ES256.
//
// People also sign in through the browser (Authorization Code with
// PKCE) at the provider's own login page (any password), as the client
// slipway-ui: POST /test/ui-client {"redirect_uri": ...} registers
// Slipway's callback.  The ID token carries the same claims.
//
// A command line signs in with the device flow (RFC 8628) as slipway-ui:
// the person approves (or aborts) at the provider's /device page.  POST
// /test/device-ttl {"seconds": N} makes new device codes live N seconds.
//
// POST /test/rotate makes a new RSA key (a new kid) the signing key and
// stops publishing the old one, as a provider rotating its keys does.
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import Provider from "oidc-provider";

const keysFile = process.argv[2];
const people = {
  alice: { secret: "alice-secret", alg: "RS256",
           claims: { preferred_username: "alice@example.com",
                     email: "alice@example.com",
                     groups: ["ml-team-a", "platform"] } },
  bob: { secret: "bob-secret", alg: "ES256",
         claims: { preferred_username: "bob@example.com",
                   email: "bob@example.com", groups: ["ml-team-b"] } },
};
let generation = 0;

function newKey(kind) {
  const { privateKey } = kind === "EC"
    ? crypto.generateKeyPairSync("ec", { namedCurve: "P-256" })
    : crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = privateKey.export({ format: "jwk" });
  generation += 1;
  jwk.kid = `${kind.toLowerCase()}-${generation}-${crypto.randomUUID()}`;
  jwk.use = "sig";
  jwk.alg = kind === "EC" ? "ES256" : "RS256";
  return jwk;
}

let keys = [newKey("RSA"), newKey("EC")];
let uiRedirect = null;
let deviceTtl = 0;
let provider;
let issuer;

function makeProvider() {
  const clients = Object.entries(people).map(([id, p]) => ({
    client_id: id,
    client_secret: p.secret,
    grant_types: ["client_credentials"],
    redirect_uris: [],
    response_types: [],
  }));
  if (uiRedirect) {
    clients.push({ client_id: "slipway-ui", client_secret: "ui-secret",
                   grant_types: ["authorization_code",
                     "urn:ietf:params:oauth:grant-type:device_code"],
                   response_types: ["code"],
                   redirect_uris: [uiRedirect] });
  }
  const p = new Provider(issuer, {
    clients,
    cookies: { keys: ["a test provider's cookie key"] },
    claims: { openid: ["sub"], profile: ["preferred_username", "groups"],
              email: ["email"] },
    conformIdTokenClaims: false,
    findAccount: (ctx, id) => ({
      accountId: id,
      claims: () => ({ sub: id, ...(people[id] || {
        claims: { preferred_username: `${id}@example.com`,
                  email: `${id}@example.com`, groups: [] } }).claims }),
    }),
    jwks: { keys },
    ...(deviceTtl ? { ttl: { DeviceCode: deviceTtl } } : {}),
    features: {
      deviceFlow: { enabled: true },
      // The provider's own login and consent pages (any password).
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, resource, client) => ({
          scope: "slipway",
          audience: resource,
          accessTokenTTL: 300,
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: (people[client.clientId] || { alg: "RS256" }).alg } },
        }),
      },
    },
    extraTokenClaims: (ctx, token) =>
      (people[token.clientId] || {}).claims,
  });
  p.proxy = false;
  return p;
}

function saveKeys() {
  fs.writeFileSync(keysFile, JSON.stringify({ keys }), { mode: 0o600 });
}

function readJson(req) {
  return new Promise((resolve) => {
    let body = "";
    req.on("data", (d) => { body += d; });
    req.on("end", () => resolve(JSON.parse(body || "{}")));
  });
}

const server = http.createServer(async (req, res) => {
  if (req.method === "POST" && req.url === "/test/ui-client") {
    uiRedirect = (await readJson(req)).redirect_uri;
    provider = makeProvider();
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end("{}");
    return;
  }
  if (req.method === "POST" && req.url === "/test/device-ttl") {
    deviceTtl = (await readJson(req)).seconds;
    provider = makeProvider();
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end("{}");
    return;
  }
  if (req.method === "POST" && req.url === "/test/rotate") {
    keys = [newKey("RSA"), keys.find((k) => k.kty === "EC")];
    provider = makeProvider();
    saveKeys();
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ kid: keys[0].kid }));
    return;
  }
  provider.callback()(req, res);
});

server.listen(0, "127.0.0.1", () => {
  issuer = `http://127.0.0.1:${server.address().port}`;
  provider = makeProvider();
  saveKeys();
  process.stdout.write(JSON.stringify({ issuer }) + "\n");
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
