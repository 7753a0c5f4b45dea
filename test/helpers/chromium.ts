import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian's Chromium: the only browser the browser tests drive (playwright-core downloads none). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Installs Debian's `chromium` package when it is missing, so `npm test` passes on a fresh machine. Only
 * root can; anyone else gets told what to install.
 */
export function ensureChromium(log: (m: string) => void = console.log): void {
  if (existsSync(CHROMIUM)) return;
  if (process.getuid?.() !== 0)
    throw new Error(`The browser tests need Chromium at ${CHROMIUM}. Install it (Debian: sudo apt-get install -y chromium) or set CHROMIUM_PATH.`);
  log(`Chromium is missing at ${CHROMIUM}: installing Debian's chromium package (apt-get)...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium, but ${CHROMIUM} is still missing`);
}
