import { Field, ID, InterfaceType } from 'type-graphql';

/**
 * The Relay `Node` interface: anything with a globally unique id that `Query.node(id)` can fetch again.
 * Ids are UUIDs, unique across every table, so they need no type prefix.
 */
@InterfaceType('Node', { description: 'An object with a globally unique id, fetchable with `node(id)`.' })
export abstract class Node {
  @Field(() => ID)
  id!: string;
}
