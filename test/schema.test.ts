import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { graphQLSchema } from '../src/app';

const file = path.join(__dirname, '..', 'schema.graphql');
const header = '# Emitted from the type-graphql classes by `npm run schema:emit`. Do not edit by hand.\n\n';

describe('schema.graphql', () => {
  it('matches the schema the code builds (run `npm run schema:emit` after changing a resolver)', async () => {
    const printed = header + printSchema(lexicographicSortSchema(await graphQLSchema())) + '\n';
    if (process.env.UPDATE_SCHEMA === '1') writeFileSync(file, printed);
    expect(readFileSync(file, 'utf8')).toBe(printed);
  });
});
