// login.js: trade an API token for the session cookie (HttpOnly,
// SameSite=Strict), then say who is logged in.  When an OpenID provider
// client is configured (GET /login/options names it), "Sign in with
// <provider>" goes through the provider's own sign-in and comes back
// with the same session cookie.
import { html, useState, useEffect } from "../lib.js";
import { api } from "../api.js";


export function Login({ nav, onLogin }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState("");
  const [provider, setProvider] = useState(null);
  useEffect(() => {
    api("GET", "/login/options").then((o) => {
      if (nav.current()) setProvider(o.provider || null);
    }, () => {});
  }, []);
  const submit = async (ev) => {
    ev.preventDefault();
    try {
      await api("POST", "/login", { token: token.trim() });
      const me = await api("GET", "/whoami");
      if (nav.current()) onLogin(me);
    } catch (e) {
      if (nav.current()) setError(e.message);
    }
  };
  return html`<section class="card narrow">
    <h1>Log in</h1>
    ${provider && html`<p><a id="login-provider" class="button primary"
      href=${provider.url}>Sign in with ${provider.name}</a></p>
      <p>Or:</p>`}
    <p>Paste an API token (<code>slipway token create --scope write
      --name you</code>).</p>
    <form id="login-form" onSubmit=${submit}>
      <label for="token">Token
        <input id="token" name="token" type="password" autocomplete="off"
          required value=${token} onInput=${(e) => setToken(e.target.value)}/>
      </label>
      <p class="error" id="login-error" role="alert">${error}</p>
      <button type="submit" class="primary">Log in</button>
    </form>
  </section>`;
}
