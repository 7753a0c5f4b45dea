import { execute, type GraphQLSchema } from 'graphql';
import { graphQLSchema } from '../../../src/app';
import { BlueprintActivityKind } from '../../../src/blueprints/blueprint.events';
import { activityLive, type ActivityItem } from '../../../src/broadcasts/activity-live';
import type { Viewer } from '../../../src/platform/context';
import { notFound } from '../../../src/platform/errors';
import { CompiledDocuments } from '../../../src/platform/graphql/graphql-compiled';
import { directFrame, executedFrame, frameContext, random, subscriptionInfo } from '../../helpers/frames';

/**
 * The `blueprintActivity` direct path (the frame encoder behind the live engine's one hook) answers
 * exactly what the type-graphql resolvers answer: for generated events of every kind (with and without a
 * subject, and the copy without the subject a receiver gets when it may not read the fork), each
 * selection of the event's own fields runs through graphql execution (graphql-js and the compiled path the
 * server uses) and through the encoder, and the frames are compared as text. Selections of resolved
 * fields are declined (execution answers them), and an item that ends a stream is never encoded.
 */

const viewer: Viewer = { principalId: '00000000-0000-4000-8000-0000000000aa', kind: 'agent', name: 'reader' };

const context = () => frameContext(viewer);

function uuid(next: () => number): string {
  const hex = () => Math.floor(next() * 16).toString(16);
  const part = (n: number) => Array.from({ length: n }, hex).join('');
  return `${part(8)}-${part(4)}-4${part(3)}-8${part(3)}-${part(12)}`;
}

const kinds = Object.values(BlueprintActivityKind);

function event(next: () => number, i: number): ActivityItem {
  const kind = kinds[i % kinds.length]!;
  const subjectId = next() < 0.3 ? null : uuid(next);
  return { blueprintId: uuid(next), kind, subjectId, actorId: uuid(next), ...(next() < 0.2 ? { sourceId: uuid(next) } : {}) };
}

/** Selections the encoder must answer (it may not decline them). */
const encoded = [
  // The scale bench's document.
  'subscription ($id: ID!) { blueprintActivity(id: $id) { kind } }',
  'subscription ($id: ID!) { blueprintActivity(id: $id) { __typename kind blueprintId subjectId } }',
  'subscription ($id: ID!) { watch: blueprintActivity(id: $id) { what: kind on: blueprintId subjectId kind } }',
  `subscription ($id: ID!) { blueprintActivity(id: $id) { ...A subjectId } }
    fragment A on BlueprintActivity { __typename blueprintId ... on BlueprintActivity { kind } }`,
];

/** Selections the encoder declines (resolved fields, a directive): execution answers them. */
const declined = [
  'subscription ($id: ID!) { blueprintActivity(id: $id) { kind actor { id } } }',
  'subscription ($id: ID!) { blueprintActivity(id: $id) { kind blueprint { id } } }',
  'subscription ($id: ID!) { blueprintActivity(id: $id) { kind fork { id } } }',
  'subscription ($id: ID!) { blueprintActivity(id: $id) { kind versionNumber } }',
  'subscription ($id: ID!) { blueprintActivity(id: $id) { kind subjectId @include(if: true) } }',
];

const infoOf = (schema: GraphQLSchema, query: string) => subscriptionInfo(schema, 'blueprintActivity', query);

describe('the blueprintActivity frame encoder answers what the resolvers answer', () => {
  let schema: GraphQLSchema;
  beforeAll(async () => {
    schema = await graphQLSchema();
  });

  it('for every field it encodes, over generated events of every kind', async () => {
    const next = random(26);
    const events = Array.from({ length: 120 }, (_, i) => event(next, i));
    // What a receiver who may not read the fork gets: the same event without its subject.
    const items = [
      ...events,
      ...events.filter((e) => !(e instanceof Error) && e.kind === 'forked').map((e) => ({ ...(e as object), subjectId: null }) as ActivityItem),
    ];
    const compiled = new CompiledDocuments(schema);
    let compared = 0;
    for (const query of encoded) {
      const { document, info } = infoOf(schema, query);
      const encoder = activityLive.frames!(info);
      expect(encoder).not.toBeNull();
      for (const item of items) {
        expect(activityLive.visibleToAll!(item)).toBe(true);
        const args = { schema, document, rootValue: item, contextValue: context(), variableValues: { id: 'x' } };
        const expected = executedFrame(await execute(args));
        expect(executedFrame(await compiled.execute({ ...args, contextValue: context() }))).toBe(expected);
        const payload = encoder!.encode(item);
        expect(payload).not.toBeNull();
        expect(directFrame(payload!)).toBe(expected);
        // Encoded once per event and selection: the same item gives the same text again.
        expect(encoder!.encode(item)).toBe(payload);
        compared += 1;
      }
    }
    expect(compared).toBe(encoded.length * items.length);
  });

  it('declines selections of resolved fields or with directives, which execution answers', async () => {
    for (const query of declined) expect(activityLive.frames!(infoOf(schema, query).info)).toBeNull();
  });

  it('never encodes an item that ends the stream: the engine ends it with the error instead', async () => {
    const encoder = activityLive.frames!(infoOf(schema, encoded[1]!).info)!;
    const gone = notFound('blueprint', '00000000-0000-4000-8000-000000000001');
    expect(activityLive.visibleToAll!(gone)).toBe(false);
    expect(await activityLive.sight!(context(), gone)).toBe(gone);
    expect(encoder.encode(gone)).toBeNull();
  });
});
