import {
  BlueprintReviewsDocument,
  DeleteMyReviewDocument,
  RegistryRatingsDocument,
  ReviewBlueprintDocument,
  UpdateMyReviewDocument,
  ViewerReviewDocument,
} from '../generated/graphql';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let owner: string;
beforeAll(async () => {
  server = await startTestServer();
  owner = await server.rest.agentToken('author');
});
afterAll(() => server.close());

const review = (id: string, token: string, body: unknown) => server.rest.post(`/api/blueprints/${id}/reviews`, { token, body });

describe('reviews', () => {
  it('takes one review per reviewer, newest first, and keeps review_count and rating_average on the body and the card', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Reviewed plan', tags: ['reviewed-plan'] });
    expect(bp).toMatchObject({ review_count: 0, rating_average: null });
    const alice = await server.rest.signUp();
    const bob = await server.rest.agentSession('bob');
    const first = await review(bp.id, alice.token, { rating: 5, body: 'Clear steps.' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.any(String),
      blueprint_id: bp.id,
      reviewer: { id: alice.id, name: alice.username },
      rating: 5,
      body: 'Clear steps.',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await review(bp.id, bob.token, { rating: 2, body: '' })).status).toBe(201);

    const second = await review(bp.id, alice.token, { rating: 1, body: 'again' });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('CONFLICT');

    const list = await server.rest.get(`/api/blueprints/${bp.id}/reviews`, { token: owner });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 2, limit: 20, offset: 0 });
    expect(list.body.items.map((r: any) => r.reviewer.id)).toEqual([bob.id, alice.id]);
    expect((await server.rest.get(`/api/blueprints/${bp.id}/reviews?limit=1&offset=1`, { token: owner })).body.items.map((r: any) => r.rating)).toEqual([5]);

    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: owner })).body).toMatchObject({ review_count: 2, rating_average: 3.5 });
    const registry = await server.rest.get('/api/registry?tags=reviewed-plan', { token: owner });
    expect(registry.body.items[0]).toMatchObject({ id: bp.id, review_count: 2, rating_average: 3.5 });

    const patched = await server.rest.patch(`/api/blueprints/${bp.id}/reviews/mine`, { token: bob.token, body: { rating: 4 } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ rating: 4, body: '' });
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: owner })).body.rating_average).toBe(4.5);
    expect((await server.rest.delete(`/api/blueprints/${bp.id}/reviews/mine`, { token: alice.token })).status).toBe(204);
    expect((await server.rest.delete(`/api/blueprints/${bp.id}/reviews/mine`, { token: alice.token })).status).toBe(404);
    expect((await server.rest.patch(`/api/blueprints/${bp.id}/reviews/mine`, { token: alice.token, body: { rating: 3 } })).status).toBe(404);
    expect((await server.rest.get(`/api/blueprints/${bp.id}`, { token: owner })).body).toMatchObject({ review_count: 1, rating_average: 4 });
    // Reviewing again after deleting is a fresh review.
    expect((await review(bp.id, alice.token, { rating: 3, body: 'second look' })).status).toBe(201);
  });

  it("refuses the owner's own review (403), bad bodies (400), and hides a private blueprint's reviews (404)", async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Own plan' });
    const own = await review(bp.id, owner, { rating: 5, body: 'mine is great' });
    expect(own.status).toBe(403);
    const critic = await server.rest.agentToken('critic');
    for (const body of [
      { rating: 0, body: '' },
      { rating: 6, body: '' },
      { rating: 3.5, body: '' },
      { rating: 3 },
      { rating: 3, body: 'x', stars: 1 },
      { rating: 3, body: 'x'.repeat(10_001) },
    ])
      expect((await review(bp.id, critic, body)).status).toBe(400);
    expect((await server.rest.patch(`/api/blueprints/${bp.id}/reviews/mine`, { token: critic, body: {} })).status).toBe(400);
    const secret = await createBlueprint(server.rest, owner, { name: 'Private reviewed', visibility: 'private' });
    expect((await server.rest.get(`/api/blueprints/${secret.id}/reviews`, { token: critic })).status).toBe(404);
    expect((await review(secret.id, critic, { rating: 4, body: 'peek' })).status).toBe(404);
    expect((await server.rest.get(`/api/blueprints/${secret.id}/reviews`, { token: owner })).status).toBe(200);
    expect((await server.rest.get(`/api/blueprints/${bp.id}/reviews`)).status).toBe(401);
  });

  it('a fork starts with no reviews', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Forked after reviews' });
    expect((await review(bp.id, await server.rest.agentToken(), { rating: 4, body: 'good' })).status).toBe(201);
    const copy = await fork(server.rest, await server.rest.agentToken('forker'), bp.id);
    expect(copy).toMatchObject({ review_count: 0, rating_average: null });
    expect((await server.rest.get(`/api/blueprints/${copy.id}/reviews`, { token: owner })).body.total).toBe(0);
  });

  it('reviews over GraphQL: Blueprint.reviews, reviewBlueprint, updateMyReview, deleteMyReview', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'GraphQL reviewed' });
    const critic = await server.rest.signUp();
    const made = await server.gql.ok(ReviewBlueprintDocument, { blueprintId: bp.id, rating: 4, body: 'solid' }, critic.token);
    expect(made.reviewBlueprint).toMatchObject({ rating: 4, body: 'solid' });
    const again = await server.gql.request(ReviewBlueprintDocument, { blueprintId: bp.id, rating: 4, body: 'solid' }, critic.token);
    expect(again.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    expect((await server.gql.ok(UpdateMyReviewDocument, { blueprintId: bp.id, body: 'solider' }, critic.token)).updateMyReview).toMatchObject({
      rating: 4,
      body: 'solider',
    });
    const read = await server.gql.ok(BlueprintReviewsDocument, { id: bp.id }, owner);
    expect(read.blueprint).toMatchObject({
      reviewCount: 1,
      ratingAverage: 4,
      reviews: { totalCount: 1, edges: [{ node: { rating: 4, body: 'solider', reviewer: { id: critic.id, name: critic.username } } }] },
    });
    expect((await server.gql.ok(DeleteMyReviewDocument, { blueprintId: bp.id }, critic.token)).deleteMyReview).toBe(true);
    expect((await server.gql.ok(BlueprintReviewsDocument, { id: bp.id }, owner)).blueprint).toMatchObject({ reviewCount: 0, ratingAverage: null });
  });

  it("answers the viewer's own review on Blueprint.viewerReview, however many reviews are newer; null for everyone else", async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Much reviewed' });
    const early = await server.rest.signUp();
    await server.gql.ok(ReviewBlueprintDocument, { blueprintId: bp.id, rating: 2, body: 'first' }, early.token);
    const later = await server.rest.signUp();
    await server.gql.ok(ReviewBlueprintDocument, { blueprintId: bp.id, rating: 5, body: 'newer' }, later.token);
    // The first page (one review, newest first) does not hold the early reviewer's own.
    const read = await server.gql.ok(ViewerReviewDocument, { id: bp.id }, early.token);
    expect(read.blueprint!.reviews.edges.map((e) => e.node.id)).not.toContain(read.blueprint!.viewerReview?.id);
    expect(read.blueprint!.viewerReview).toMatchObject({ rating: 2, body: 'first', reviewer: { id: early.id } });
    expect((await server.gql.ok(ViewerReviewDocument, { id: bp.id }, owner)).blueprint!.viewerReview).toBeNull();
    const stranger = await server.rest.signUp();
    expect((await server.gql.ok(ViewerReviewDocument, { id: bp.id }, stranger.token)).blueprint!.viewerReview).toBeNull();
  });

  it('reads review_count and rating_average for a page of cards with the same SQL statements for 2 cards as for 8', async () => {
    const reviewers = await Promise.all(Array.from({ length: 3 }, (_, i) => server.rest.agentToken(`batch reviewer ${i}`)));
    const seed = async (tag: string, n: number) => {
      for (let i = 0; i < n; i++) {
        const bp = await createBlueprint(server.rest, owner, { name: `${tag} ${i}`, tags: [tag] });
        for (const [j, token] of reviewers.entries()) expect((await review(bp.id, token, { rating: 1 + ((i + j) % 5), body: 'ok' })).status).toBe(201);
      }
    };
    await seed('batch-small', 2);
    await seed('batch-large', 8);
    const small = await server.rest.get('/api/registry?tags=batch-small', { token: owner });
    const large = await server.rest.get('/api/registry?tags=batch-large', { token: owner });
    expect(small.body.items).toHaveLength(2);
    expect(large.body.items).toHaveLength(8);
    expect(large.body.items.every((c: any) => c.review_count === 3 && typeof c.rating_average === 'number')).toBe(true);
    expect(large.headers.get('x-sql-statements')).toBe(small.headers.get('x-sql-statements'));
    const gqlSmall = await server.gql.request(RegistryRatingsDocument, { tags: ['batch-small'] }, owner);
    const gqlLarge = await server.gql.request(RegistryRatingsDocument, { tags: ['batch-large'] }, owner);
    expect(gqlLarge.data!.registry.edges.every((e) => e.node.reviewCount === 3)).toBe(true);
    expect(gqlLarge.sqlStatements).toBe(gqlSmall.sqlStatements);
  }, 120_000);
});
