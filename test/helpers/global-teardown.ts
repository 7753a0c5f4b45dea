import { withPg } from './sql';
import { adminQuery, testDatabasePrefix, withDatabase } from './database';

export default async function globalTeardown(): Promise<void> {
  const server = process.env.BW_TEST_SERVER_URL;
  const template = process.env.BW_TEST_TEMPLATE_DB;
  if (server && template) {
    // Per-file databases a crashed or killed file did not drop go with the template.
    const leftovers = await withPg(
      withDatabase(server, 'postgres'),
      async (client) =>
        (await client.query<{ datname: string }>('select datname from pg_database where starts_with(datname, $1)', [testDatabasePrefix(template)])).rows,
    );
    for (const { datname } of leftovers) await adminQuery(server, `drop database if exists "${datname}" with (force)`);
    await adminQuery(server, `drop database if exists ${template} with (force)`);
  }
  await (globalThis as { __bwEmbedded?: { stop(): Promise<void> } }).__bwEmbedded?.stop();
}
