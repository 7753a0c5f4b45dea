import { Kind, parse, type FieldNode, type FragmentDefinitionNode, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import { MessageType, stringifyMessage } from 'graphql-ws';
import type WebSocket from 'ws';
import { defaultLimits } from '../../src/platform/config';
import type { RequestContext, Viewer } from '../../src/platform/context';
import { SocketNextWriter } from '../../src/platform/graphql/graphql-ws-server';

/**
 * For the tests that compare a live frame encoder with execution: a subscription document parsed, and the
 * part of a resolve info an encoder reads (its one root field node, the field's type, the fragments).
 */
export function subscriptionInfo(schema: GraphQLSchema, field: string, query: string): { document: ReturnType<typeof parse>; info: GraphQLResolveInfo } {
  const document = parse(query);
  let node: FieldNode | null = null;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
    else if (definition.kind === Kind.OPERATION_DEFINITION) node = definition.selectionSet.selections[0] as FieldNode;
  }
  const returnType = schema.getSubscriptionType()!.getFields()[field]!.type;
  return { document, info: { fieldNodes: [node!], returnType, fragments } as unknown as GraphQLResolveInfo };
}

/** The frame as graphql-ws sends it for an executed event. */
export const executedFrame = (payload: unknown): string => stringifyMessage({ id: 'op-1', type: MessageType.Next, payload: payload as never });

/** The frame as the direct path writes it (the WebSocket server's writer over a socket that records). */
export function directFrame(payload: string): string {
  const sent: string[] = [];
  const socket = { readyState: 1, send: (text: string) => sent.push(text) } as unknown as WebSocket;
  expect(new SocketNextWriter(socket, 'op-1').next(payload)).toBe(true);
  return sent[0]!;
}

/** The context execution gets in these comparisons: a viewer and default limits, nothing to read from. */
export function frameContext(viewer: Viewer): RequestContext {
  return {
    viewer,
    config: { limits: defaultLimits },
    tokenHash: null,
    requestId: 'frames',
    em: { clear: () => undefined },
    loaders: { clear: () => undefined },
  } as unknown as RequestContext;
}

/** A small deterministic generator, so a failure names a reproducible case. */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
