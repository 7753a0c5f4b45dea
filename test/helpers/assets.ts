/**
 * Loads a browser page the way a browser would (the HTML, then every script, stylesheet, icon and image it
 * references, then the `url(...)`s of those stylesheets) and reports any asset that lives on another host.
 * Only our own server is ever contacted: an external URL is reported, never fetched.
 */
export interface LoadedAsset {
  url: string;
  status: number;
  contentType: string;
  text: string;
}

/** URLs a page's HTML loads: `<script src>`, `<link href>`, `<img src>`, resolved against the page URL. */
export function assetUrlsOf(html: string, pageUrl: string): string[] {
  const urls: string[] = [];
  for (const m of html.matchAll(/<(script|link|img|iframe|source)\b[^>]*?\b(src|href)\s*=\s*["']([^"']+)["']/gi)) urls.push(new URL(m[3]!, pageUrl).toString());
  return urls;
}

/** `url(...)` references of a stylesheet that are not inline `data:` URLs. */
function cssUrlsOf(css: string, cssUrl: string): string[] {
  const urls: string[] = [];
  for (const m of css.matchAll(/url\(\s*["']?([^"')]+)["']?\s*\)/g)) if (!m[1]!.startsWith('data:')) urls.push(new URL(m[1]!, cssUrl).toString());
  return urls;
}

export async function fetchAll(
  baseUrl: string,
  path: string,
  headers: Record<string, string> = { accept: 'text/html' },
): Promise<{ pages: LoadedAsset[]; external: string[] }> {
  const origin = new URL(baseUrl).origin;
  const pages: LoadedAsset[] = [];
  const external: string[] = [];
  const seen = new Set<string>();
  const load = async (url: string, extraHeaders: Record<string, string> = {}): Promise<LoadedAsset | undefined> => {
    if (seen.has(url)) return undefined;
    seen.add(url);
    if (new URL(url).origin !== origin) {
      external.push(url);
      return undefined;
    }
    const res = await fetch(url, { headers: extraHeaders, redirect: 'follow' });
    const asset = { url: res.url, status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
    pages.push(asset);
    return asset;
  };
  const page = await load(new URL(path, baseUrl).toString(), headers);
  if (!page) return { pages, external };
  for (const url of assetUrlsOf(page.text, page.url)) {
    const asset = await load(url);
    if (asset?.contentType.includes('css')) for (const inner of cssUrlsOf(asset.text, asset.url)) await load(inner);
  }
  return { pages, external };
}
