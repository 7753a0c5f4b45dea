import { isObjectType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import type { RequestContext } from '../context';

/**
 * Replaces type-graphql's resolver wrapper on one field with `resolve`, called as it is. type-graphql makes
 * every resolver with an `@Arg` asynchronous (argument conversion is an async step); a subscription field
 * runs once per event per subscriber, so that step costs 2,000 promises for one event to 2,000
 * subscribers. The decorated method stays (it declares the field) and must call the same function.
 */
export function directResolver<TSource>(
  schema: GraphQLSchema,
  typeName: string,
  fieldName: string,
  resolve: GraphQLFieldResolver<TSource, RequestContext>,
): void {
  const type = schema.getType(typeName);
  const field = isObjectType(type) ? type.getFields()[fieldName] : undefined;
  if (!field) throw new Error(`${typeName}.${fieldName} is missing from the schema`);
  field.resolve = resolve as GraphQLFieldResolver<unknown, unknown>;
}
