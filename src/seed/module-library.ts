/**
 * The demo registry's module library: one meaning per key, so bred plans combine cleanly. The original
 * blueprints built from it are in catalog.ts.
 */

export interface CatalogModule {
  name: string;
  kind: string;
  summary: string;
  depends_on: string[];
  steps: Array<{ title: string; instructions: string; acceptance: string[] }>;
}

const m = (name: string, kind: string, summary: string, depends_on: string[], steps: CatalogModule['steps']): CatalogModule => ({
  name,
  kind,
  summary,
  depends_on,
  steps,
});
const step = (title: string, instructions: string, ...acceptance: string[]) => ({ title, instructions, acceptance });

/** Every module a demo blueprint may hold, by key. Dependencies always point down this list's layers. */
export const moduleLibrary: Record<string, CatalogModule> = {
  db: m(
    'Database',
    'data',
    'PostgreSQL schema and migrations',
    [],
    [step('Design the schema', 'Model the entities and write the first migration.', 'migrations apply on an empty database')],
  ),
  cache: m(
    'Cache',
    'infra',
    'Redis cache for hot reads',
    [],
    [step('Add the cache layer', 'Cache the hottest reads with a TTL and explicit invalidation.', 'a cached read is served without a query')],
  ),
  auth: m(
    'Authentication',
    'service',
    'Sign-up, sign-in and sessions',
    ['db'],
    [
      step('Store users', 'Create the users table with hashed passwords (argon2id).', 'passwords are never stored in clear'),
      step(
        'Sign in',
        'Issue a session token on valid credentials; rate limit failures.',
        'a wrong password answers 401',
        'ten failures in a minute answer 429',
      ),
    ],
  ),
  tenants: m(
    'Tenants',
    'service',
    'Organisations, members and roles',
    ['db', 'auth'],
    [step('Model tenants', 'Every row carries a tenant id; queries are scoped by it.', "a user never sees another tenant's rows")],
  ),
  billing: m(
    'Billing',
    'service',
    'Plans, subscriptions and invoices',
    ['db', 'tenants'],
    [
      step('Define plans', 'Store plans with prices and limits.', 'a plan change is prorated'),
      step('Invoice', 'Create monthly invoices and handle failed payments with retries.', 'a failed payment is retried three times'),
    ],
  ),
  emails: m(
    'Emails',
    'service',
    'Transactional emails from templates',
    ['db'],
    [step('Send emails', 'Queue emails and send them through the provider with retries.', 'a provider outage loses no email')],
  ),
  api: m(
    'REST API',
    'backend',
    'JSON over HTTP with validation',
    ['db', 'auth'],
    [
      step('Define the routes', 'Write the route table with request and response schemas.', 'every route has a schema'),
      step('Handle errors', 'Answer one error shape with stable codes.', 'bad input is a 400, never a 500'),
    ],
  ),
  'graphql-api': m(
    'GraphQL API',
    'backend',
    'A typed GraphQL schema with DataLoaders',
    ['db', 'auth'],
    [step('Write the schema', 'Define types and resolvers; batch nested reads with DataLoaders.', 'nested reads cost a bounded number of queries')],
  ),
  gateway: m(
    'API gateway',
    'infra',
    'Routing, TLS and rate limits in front of services',
    ['api'],
    [step('Route traffic', 'Route by path prefix to the services and terminate TLS.', 'an unknown path answers 404')],
  ),
  'rate-limit': m(
    'Rate limiting',
    'service',
    'Per-token request budgets',
    ['cache'],
    [step('Count requests', 'Sliding-window counters per token in the cache.', 'the 601st request in a minute answers 429')],
  ),
  docs: m(
    'API docs',
    'docs',
    'OpenAPI document and a reference site',
    ['api'],
    [step('Publish the reference', 'Generate the OpenAPI document from the route schemas.', 'the document validates')],
  ),
  catalog: m(
    'Product catalog',
    'service',
    'Products, variants and prices',
    ['db'],
    [step('Model products', 'Products with variants, prices per currency and stock keeping units.', 'a variant always has a price')],
  ),
  search: m(
    'Search',
    'service',
    'Full-text product search with facets',
    ['catalog'],
    [step('Index products', 'Index names and descriptions; facet by category and price.', 'a typo still finds the product')],
  ),
  cart: m(
    'Cart',
    'service',
    'Carts for guests and customers',
    ['catalog', 'cache'],
    [step('Keep carts', 'Store carts in the cache; merge a guest cart at sign-in.', 'a cart survives sign-in')],
  ),
  inventory: m(
    'Inventory',
    'service',
    'Stock levels and reservations',
    ['catalog'],
    [step('Reserve stock', 'Reserve stock at checkout and release it after 15 minutes.', 'two buyers cannot buy the last item')],
  ),
  payments: m(
    'Payments',
    'service',
    'Card payments through a provider',
    ['db'],
    [step('Take payments', 'Create payment intents and confirm them through webhooks.', 'a replayed webhook changes nothing')],
  ),
  checkout: m(
    'Checkout',
    'service',
    'Address, shipping and payment in one flow',
    ['cart', 'payments', 'inventory'],
    [step('Build the flow', 'Collect address and shipping, then pay; one transaction creates the order.', 'a failed payment creates no order')],
  ),
  orders: m(
    'Orders',
    'service',
    'Order history, refunds and fulfilment',
    ['db', 'payments'],
    [step('Track orders', 'Order states from paid to delivered, with refunds.', 'a refund is never larger than the payment')],
  ),
  storefront: m(
    'Storefront',
    'frontend',
    'Product pages, cart and checkout UI',
    ['catalog', 'cart', 'checkout'],
    [step('Build the pages', 'Home, category, product, cart and checkout pages; server-rendered.', 'the product page loads under a second')],
  ),
  'arg-parser': m(
    'Argument parser',
    'cli',
    'Flags, subcommands and help text',
    [],
    [step('Parse arguments', 'Declare flags with types and defaults; generate --help.', 'an unknown flag prints help and exits 2')],
  ),
  config: m(
    'Configuration',
    'cli',
    'Config files, environment and defaults',
    [],
    [step('Load configuration', 'Merge defaults, the config file and the environment, in that order.', 'the environment wins over the file')],
  ),
  commands: m(
    'Commands',
    'cli',
    'The subcommands and their handlers',
    ['arg-parser', 'config'],
    [
      step('Implement commands', 'One file per subcommand with its own flags.', 'every command has a test'),
      step('Exit codes', 'Document and use stable exit codes.', 'a failure never exits 0'),
    ],
  ),
  output: m(
    'Output',
    'cli',
    'Human and JSON output, colours when a TTY',
    ['commands'],
    [step('Format output', 'Tables for humans, --json for scripts; no colour when piped.', '--json output parses')],
  ),
  plugins: m(
    'Plugins',
    'cli',
    'Load third-party commands',
    ['commands'],
    [step('Load plugins', 'Discover plugins by package name prefix and register their commands.', 'a broken plugin does not break the CLI')],
  ),
  updater: m(
    'Self-update',
    'cli',
    'Check for and install new versions',
    ['config'],
    [step('Check versions', 'Check for a newer release at most once a day.', 'no network call when offline')],
  ),
  'data-source': m(
    'Data sources',
    'backend',
    'Connectors to databases and APIs',
    ['db'],
    [step('Connect sources', 'Connectors with credentials stored encrypted.', 'a bad credential is reported, not logged')],
  ),
  queries: m(
    'Query engine',
    'backend',
    'Aggregations over the sources',
    ['data-source', 'cache'],
    [step('Aggregate', 'Group, filter and aggregate with cached results.', 'the same query twice hits the cache')],
  ),
  charts: m(
    'Charts',
    'frontend',
    'Line, bar and pie charts',
    ['queries'],
    [step('Draw charts', 'Render charts from query results with accessible colours.', 'every chart has a text alternative')],
  ),
  widgets: m(
    'Widgets',
    'frontend',
    'Dashboard tiles and their layout',
    ['charts'],
    [step('Lay out widgets', 'A drag-and-drop grid of tiles, saved per dashboard.', 'the layout survives a reload')],
  ),
  filters: m(
    'Filters',
    'frontend',
    'Date ranges and dimensions shared by widgets',
    ['queries'],
    [step('Share filters', 'One filter bar drives every widget of the dashboard.', 'changing the range refreshes every widget')],
  ),
  exports: m(
    'Exports',
    'service',
    'CSV and PDF exports of dashboards',
    ['queries'],
    [step('Export', 'Export a dashboard to PDF and its data to CSV.', 'an export matches what is on screen')],
  ),
  'admin-ui': m(
    'Admin UI',
    'frontend',
    'Back office for operators',
    ['api'],
    [step('Build the back office', 'Tables with search and edit forms for every entity.', 'every change is audited')],
  ),
  'web-app': m(
    'Web app',
    'frontend',
    'The customer-facing single-page app',
    ['api'],
    [step('Build the app', 'Routes, forms and error states for the main flows.', 'every form shows server errors inline')],
  ),
  observability: m(
    'Observability',
    'infra',
    'Logs, metrics and traces',
    [],
    [step('Instrument', 'Structured logs, Prometheus metrics and traces on every request.', 'a request id appears in every log line')],
  ),
};
