import type { TokenScope } from '../auth/access-token.entity';

export interface ConsentPage {
  /** The secret that ties the form to its stored request (and proves the form came from this page). */
  requestSecret: string;
  clientName: string;
  redirectUri: string;
  scope: TokenScope;
  /** Shown above the form after a failed attempt. */
  error?: string;
  username?: string;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The page a person sees when an MCP client asks for access: who asks, for what, and a sign-in form with
 * the account's username and password. Allow signs in and grants; Deny tells the client no.
 */
export function renderConsentPage(page: ConsentPage): string {
  const e = escapeHtml;
  const what = page.scope === 'write' ? 'read and change your blueprints, architectures and teams' : 'read what your account may read (read only)';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Sign in to Blueprint Workshop</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; color: #1d2433; }
  label { display: block; margin: .8rem 0 .2rem; }
  input[type=text], input[type=password] { width: 100%; padding: .5rem; box-sizing: border-box; }
  .error { background: #fde8e8; border: 1px solid #f5b5b5; padding: .6rem; }
  .actions { margin-top: 1.2rem; display: flex; gap: .6rem; }
  small { color: #5b6475; }
</style>
</head>
<body>
<h1>Sign in to Blueprint Workshop</h1>
<p><strong>${e(page.clientName)}</strong> asks to ${e(what)} as you.</p>
<p><small>After you allow it, you return to ${e(page.redirectUri)}. The token appears in your account's token list, where you can revoke it.</small></p>
${page.error ? `<p class="error" role="alert">${e(page.error)}</p>` : ''}
<form method="post" action="/oauth/consent">
  <input type="hidden" name="request" value="${e(page.requestSecret)}">
  <label for="username">Username</label>
  <input id="username" name="username" type="text" autocomplete="username" required value="${e(page.username ?? '')}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <div class="actions">
    <button type="submit" name="decision" value="allow">Allow</button>
    <button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
  </div>
</form>
</body>
</html>
`;
}

/** A consent form posted after its request expired or was already answered (a second tab, a replay). */
export function renderExpiredPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign-in request expired</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 28rem; margin: 3rem auto;">
<h1>This sign-in request is no longer valid</h1>
<p>It expired or was already answered. Start again from your MCP client.</p>
</body></html>
`;
}
