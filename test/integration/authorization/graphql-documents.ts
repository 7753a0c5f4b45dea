import { randomUUID } from 'node:crypto';
import {
  getNamedType,
  isAbstractType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import type { World } from './expect';

// GraphQL documents are built from the schema: required arguments get harmless values (unknown ids, so a
// call that passes authorization ends in NOT_FOUND or VALIDATION_FAILED, never in a change).
function sample(type: GraphQLInputType): unknown {
  if (isNonNullType(type)) return sample(type.ofType);
  if (isListType(type)) return [];
  if (isEnumType(type)) return type.getValues()[0]!.name;
  if (isInputObjectType(type))
    return Object.fromEntries(
      Object.values(type.getFields())
        .filter((f) => isNonNullType(f.type))
        .map((f) => [f.name, sample(f.type)]),
    );
  switch (type.name) {
    case 'ID':
      return randomUUID();
    case 'Int':
    case 'Float':
      return 1;
    case 'Boolean':
      return true;
    case 'String':
      return 'no-such-thing';
    case 'DateTimeISO':
      return new Date().toISOString();
    default:
      return {};
  }
}

export type RootKind = 'query' | 'mutation' | 'subscription';

/** Which root type a field of the table belongs to. */
export function rootKindOf(schema: GraphQLSchema, name: string): RootKind {
  return schema.getQueryType()!.getFields()[name] ? 'query' : schema.getMutationType()!.getFields()[name] ? 'mutation' : 'subscription';
}

/** The names of the root fields of these kinds. */
export function rootFields(schema: GraphQLSchema, kinds: readonly RootKind[]): string[] {
  const types = { query: schema.getQueryType(), mutation: schema.getMutationType(), subscription: schema.getSubscriptionType() };
  return kinds.flatMap((k) => Object.keys(types[k]?.getFields() ?? {}));
}

/** A document calling one root field with sample values for its required arguments. */
export function documentFor(w: World, schema: GraphQLSchema, name: string): { query: string; variables: Record<string, unknown> } {
  const kind = rootKindOf(schema, name);
  const field: GraphQLField<unknown, unknown> = (
    kind === 'query' ? schema.getQueryType() : kind === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType()
  )!.getFields()[name]!;
  const required = field.args.filter((a) => isNonNullType(a.type));
  const variables = Object.fromEntries(
    required.map((a) => [a.name, field.name === 'architectureChanged' && a.name === 'slug' ? w.pubArch.slug : sample(a.type)]),
  );
  const defs = required.length ? `(${required.map((a) => `$${a.name}: ${String(a.type)}`).join(', ')})` : '';
  const args = required.length ? `(${required.map((a) => `${a.name}: $${a.name}`).join(', ')})` : '';
  const named = getNamedType(field.type);
  const selection = isObjectType(named) || isAbstractType(named) ? ' { __typename }' : '';
  return { query: `${kind}${defs} { ${field.name}${args}${selection} }`, variables };
}
