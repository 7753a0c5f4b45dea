import { cardSchema } from '../blueprints/blueprint.contract';
import { arrayOf, bool, dateTime, int, num, obj, page, str, strings, uuid } from '../platform/contract';
import { idParam } from '../platform/http/routes';
import { BREED_SUGGESTIONS_MAX } from './breed-suggestions.service';
import { EXACT_TOTAL_AHEAD, registrySorts } from './registry.service';

const tags = ['registry'];
const stringProps = (descriptions: Record<string, string>) => ({
  type: 'object',
  properties: Object.fromEntries(Object.entries(descriptions).map(([n, description]) => [n, { type: 'string', description }])),
});
const cardProps = (cardSchema as { properties: Record<string, unknown> }).properties;

export const registryContract = {
  search: {
    summary: 'Search public blueprints (only public ones are ever listed, whoever asks)',
    tags,
    querystring: stringProps({
      q: 'full-text query',
      tags: 'comma-separated tags, all must match (e.g. saas,api)',
      limit: 'page size (default 20, max 100)',
      offset: 'items to skip',
      sort: `one of ${registrySorts.join(', ')}`,
    }),
    description: `\`total\` is exact up to ${EXACT_TOTAL_AHEAD} matches past \`offset\`; beyond, \`total\` is \`offset + ${EXACT_TOTAL_AHEAD}\`, \`total_exact\` is false and there are more.`,
    response: {
      200: page(obj({ ...cardProps, description: str, tags: strings, forks_count: int, created_at: dateTime }), {
        total_exact: { ...bool, description: 'false: there are more matches than total (counting stops there)' },
      }),
    },
  },
  trending: {
    summary: 'Blueprints with the most stars, forks and executions in the window',
    tags,
    querystring: stringProps({ limit: 'how many (default 20, max 100)', window_days: 'the window in days' }),
    response: {
      200: obj({
        window_days: int,
        items: arrayOf(obj({ ...cardProps, description: str, tags: strings, score: num, activity: obj({ stars: int, forks: int, executions: int }) })),
      }),
    },
  },
  breedSuggestions: {
    summary: 'Blueprints worth breeding with this one: similar enough to combine, bringing modules it lacks',
    tags,
    params: idParam('id'),
    querystring: stringProps({ limit: `how many (default 10, max ${BREED_SUGGESTIONS_MAX})` }),
    response: { 200: obj({ blueprint_id: uuid, items: arrayOf(obj({ blueprint: cardSchema, score: num, shared_modules: strings, new_modules: strings })) }) },
  },
};
