import { rawHttp, type Row } from './judge';

/**
 * The OAuth endpoints (issue 24 finding 11). They answer in OAuth's own error shape (RFC 6749
 * `{error, error_description}`), the consent page in HTML, and anything the SDK leaves unanswered in the
 * section 5 shape; the contract is the same: 4xx, never a 5xx, never a stack or SQL.
 */
export function oauthRows(base: string): Row[] {
  const json = { 'content-type': 'application/json' };
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const client = (name: string) => JSON.stringify({ client_name: name, redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' });
  const big = 'x'.repeat(200_000);
  const form20k = `request=${'a'.repeat(20_000)}&username=u&password=p&decision=allow`;
  const rows: Row[] = [];
  const bodies: Array<[string, Record<string, string>, string | Buffer]> = [
    ['{', json, '{'],
    ['null', json, 'null'],
    ['[]', json, '[]'],
    ['"x"', json, '"x"'],
    ['NUL', json, client('a\\u0000b')],
    ['raw NUL byte', json, Buffer.from('{"client_name":"a\u0000b","redirect_uris":["http://127.0.0.1:9/cb"]}')],
    ['lone surrogate', json, client('a\\ud800b')],
    ['NUL redirect', json, JSON.stringify({ client_name: 'n', redirect_uris: ['http://127.0.0.1:9/c\u0000b'] })],
    ['deep', json, '['.repeat(10_000) + ']'.repeat(10_000)],
    ['over 100 KB', json, JSON.stringify({ client_name: 'big', redirect_uris: ['http://127.0.0.1:9/cb'], client_uri: `http://x/${big}` })],
    ['over 1 MiB', json, `{"a":"${'y'.repeat(1_100_000)}"}`],
    ['20 KB form', form, form20k],
    ['invalid UTF-8', json, Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  ];
  for (const path of ['/register', '/token', '/revoke', '/authorize', '/oauth/consent'])
    for (const [kind, headers, body] of bodies) rows.push({ name: `OAuth POST ${path} body ${kind}`, send: rawHttp(base, 'POST', path, headers, body) });
  for (const [kind, value] of Object.entries({ nul: '%00', surrogate: '%ED%A0%80', long: 'x'.repeat(5_000), percent: '%' })) {
    rows.push({
      name: `OAuth GET /authorize client_id=${kind}`,
      send: rawHttp(base, 'GET', `/authorize?client_id=${value}&redirect_uri=http://127.0.0.1:9/cb`, {}),
    });
    rows.push({
      name: `OAuth POST /authorize client_id=${kind}`,
      send: rawHttp(base, 'POST', '/authorize', form, `client_id=${value}&response_type=code&code_challenge=x&code_challenge_method=S256`),
    });
    rows.push({
      name: `OAuth POST /token client_id=${kind}`,
      send: rawHttp(base, 'POST', '/token', form, `grant_type=authorization_code&code=${value}&client_id=${value}`),
    });
    rows.push({ name: `OAuth POST /revoke client_id=${kind}`, send: rawHttp(base, 'POST', '/revoke', form, `token=${value}&client_id=${value}`) });
    rows.push({
      name: `OAuth POST /oauth/consent request=${kind}`,
      send: rawHttp(base, 'POST', '/oauth/consent', form, `request=${value}&username=${value}&decision=allow`),
    });
  }
  for (const host of ['evil.example', 'evil.example:1', 'a..b', '[::1]', 'x'.repeat(300), 'localhost:99999']) {
    rows.push({ name: `OAuth GET metadata Host ${host.slice(0, 20)}`, send: rawHttp(base, 'GET', '/.well-known/oauth-authorization-server', { host }) });
    rows.push({ name: `OAuth POST /register Host ${host.slice(0, 20)}`, send: rawHttp(base, 'POST', '/register', { ...json, host }, client('h')) });
    rows.push({ name: `OAuth GET /authorize Host ${host.slice(0, 20)}`, send: rawHttp(base, 'GET', '/authorize?client_id=x', { host }) });
  }
  for (const path of ['/authorize', '/token', '/register', '/revoke', '/oauth/consent', '/.well-known/oauth-protected-resource/mcp'])
    for (const method of ['PUT', 'DELETE', 'PATCH']) rows.push({ name: `OAuth ${method} ${path}`, send: rawHttp(base, method, path, json, '{}') });
  return rows;
}
