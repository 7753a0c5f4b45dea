import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { openDatabase } from '../../src/platform/sql/database';
import { startEmbeddedPostgres } from '../../src/platform/sql/embedded-postgres';
import { ensureChromium } from './chromium';
import { freePort } from './process';
import { adminQuery, withDatabase } from './database';
import { databaseSchema } from '../../src/db';

/**
 * Runs once before all test files: finds the PostgreSQL server (DATABASE_URL, or an embedded one when it
 * is unset) and makes a migrated template database that each test file copies.
 */
export default async function globalSetup(): Promise<void> {
  ensureChromium();
  let server = process.env.DATABASE_URL;
  if (!server) {
    const embedded = await startEmbeddedPostgres({
      dataDir: '.data/test',
      // A free port unless one is asked for: two checkouts testing at once each run their own cluster, and
      // a fixed default made the second fail to bind. Nothing outside the run connects to it.
      port: process.env.EMBEDDED_PG_TEST_PORT ? Number(process.env.EMBEDDED_PG_TEST_PORT) : await freePort(),
      log: (m) => console.log(m),
    });
    (globalThis as { __bwEmbedded?: { stop(): Promise<void> } }).__bwEmbedded = embedded;
    server = embedded.url;
  }
  const template = `bw_template_${randomBytes(4).toString('hex')}`;
  await adminQuery(server, `create database ${template}`);
  const orm = await openDatabase(withDatabase(server, template), databaseSchema, { poolMax: 1 });
  await orm.close();
  // MikroORM keeps entity metadata on globalThis; jest shares this realm's globals with in-band test
  // files, whose own Maps then clash with these (mikro-orm issue #3783).
  for (const key of Object.keys(globalThis)) if (key.startsWith('mikro-orm-')) delete (globalThis as Record<string, unknown>)[key];
  process.env.BW_TEST_SERVER_URL = server;
  process.env.BW_TEST_TEMPLATE_DB = template;
}
