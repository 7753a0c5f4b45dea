import { adminQuery } from './database';

export default async function globalTeardown(): Promise<void> {
  const server = process.env.BW_TEST_SERVER_URL;
  const template = process.env.BW_TEST_TEMPLATE_DB;
  if (server && template) {
    // Leftover per-file databases (a crashed file) go too.
    await adminQuery(server, `drop database if exists ${template} with (force)`);
  }
  await (globalThis as { __bwEmbedded?: { stop(): Promise<void> } }).__bwEmbedded?.stop();
}
