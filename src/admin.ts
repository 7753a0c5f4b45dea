import 'reflect-metadata';
import { createUser, mintMcpToken } from './auth/auth.service';
import { loadConfig } from './platform/config';
import { openDatabase } from './platform/sql/database';
import { startEmbeddedPostgres } from './platform/sql/embedded-postgres';
import { databaseSchema } from './db';

const usage = `usage: npm run admin -- create-user <name>
       npm run admin -- mint-token <user-id>`;

/** Operator commands. Prints the MCP token once; only its hash is stored. */
async function main(argv: string[]): Promise<number> {
  const [command, arg] = argv;
  if (!command || !arg || !['create-user', 'mint-token'].includes(command)) {
    console.error(usage);
    return 2;
  }
  const config = loadConfig();
  let url = config.databaseUrl;
  const embedded = url ? undefined : await startEmbeddedPostgres({ dataDir: config.dataDir, port: Number(process.env.EMBEDDED_PG_PORT ?? 54329) });
  if (embedded) {
    const u = new URL(embedded.url);
    u.pathname = '/blueprint_workshop';
    url = u.toString();
  }
  const orm = await openDatabase(url!, databaseSchema);
  try {
    if (command === 'create-user') {
      const { userId, token } = await createUser(orm.em.fork(), arg);
      console.log(JSON.stringify({ user_id: userId, name: arg, token }));
    } else {
      console.log(JSON.stringify({ user_id: arg, token: await mintMcpToken(orm.em.fork(), arg) }));
    }
    return 0;
  } finally {
    await orm.close();
    await embedded?.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(String(err));
    process.exit(1);
  },
);
