import { errors } from '../platform/contract';

const tags = ['web'];
const html = { type: 'string', description: "text/html: the web console (the page holds no data; it calls the API with the person's token)" };

/** The web console's pages. They answer HTML, so they are documented but never JSON-validated. */
export const webContract = {
  index: { summary: 'The web console (public; HTML)', tags, security: [], response: { 200: html, ...errors(404) } },
  page: {
    summary: 'A web console page such as /login or /registry (public; HTML), or a file of the built console',
    tags,
    security: [],
    params: { type: 'object', required: ['page'], properties: { page: { type: 'string' } } },
    response: { 200: html, ...errors(404) },
  },
  /** The console's bundles under its prefixes: static files, hidden from the API document. */
  asset: { hide: true },
};
