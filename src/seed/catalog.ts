/**
 * The demo registry's original blueprints, several per tag (saas, e-commerce, api, cli, dashboard), built
 * from the module library (module-library.ts).
 */
import { moduleLibrary } from './module-library';

export type DemoTag = 'saas' | 'e-commerce' | 'api' | 'cli' | 'dashboard';

interface Theme {
  tag: DemoTag;
  language: string;
  framework: string;
  /** Module keys every blueprint of the theme has, then extras picked per blueprint. */
  core: string[];
  extras: string[];
  names: string[];
  style: Record<string, unknown>;
}

const themes: Theme[] = [
  {
    tag: 'saas',
    language: 'typescript',
    framework: 'nextjs',
    core: ['db', 'auth', 'tenants', 'api'],
    extras: ['billing', 'emails', 'web-app', 'admin-ui', 'observability', 'cache'],
    names: [
      'Team Wiki',
      'Invoicing SaaS',
      'Helpdesk',
      'Project Tracker',
      'CRM Lite',
      'Feature Flags Service',
      'Status Pages',
      'Form Builder',
      'Scheduling App',
      'Newsletter Platform',
      'Customer Portal',
      'Time Tracking',
    ],
    style: { palette: { primary: '#4f46e5', surface: '#ffffff' }, font: 'Inter', radius: 8 },
  },
  {
    tag: 'e-commerce',
    language: 'typescript',
    framework: 'remix',
    core: ['db', 'catalog', 'cart', 'payments'],
    extras: ['checkout', 'inventory', 'orders', 'search', 'storefront', 'emails'],
    names: [
      'Coffee Shop',
      'Bookstore',
      'Sneaker Drops',
      'Print on Demand',
      'Grocery Delivery',
      'Digital Downloads',
      'Furniture Store',
      'Marketplace',
      'Subscription Boxes',
      'Plant Nursery',
      'Ticketing',
      'Wine Club',
    ],
    style: { palette: { primary: '#059669', surface: '#fafaf9' }, font: 'Source Sans 3', radius: 4 },
  },
  {
    tag: 'api',
    language: 'go',
    framework: 'chi',
    core: ['db', 'auth', 'api'],
    extras: ['cache', 'rate-limit', 'docs', 'gateway', 'graphql-api', 'observability'],
    names: [
      'Weather API',
      'URL Shortener',
      'Payments Gateway',
      'Geocoding API',
      'Image Resizing',
      'Webhooks Relay',
      'Currency Rates',
      'Email Validation',
      'Feature Store',
      'Notifications API',
      'Search API',
      'Identity API',
    ],
    style: { docs: { theme: 'dark' } },
  },
  {
    tag: 'cli',
    language: 'rust',
    framework: 'clap',
    core: ['arg-parser', 'config', 'commands'],
    extras: ['output', 'plugins', 'updater', 'cache'],
    names: [
      'Dotfiles Manager',
      'Log Grep',
      'Release Tool',
      'Database Migrator',
      'Static Site Generator',
      'Secrets CLI',
      'Benchmark Runner',
      'Project Scaffolder',
      'Backup Tool',
      'Todo CLI',
      'Git Stats',
      'Cloud Cost CLI',
    ],
    style: { terminal: { colours: 'auto', unicode: true } },
  },
  {
    tag: 'dashboard',
    language: 'typescript',
    framework: 'react',
    core: ['db', 'data-source', 'queries', 'charts'],
    extras: ['widgets', 'filters', 'exports', 'auth', 'cache', 'observability'],
    names: [
      'Sales Dashboard',
      'Ops Metrics',
      'Marketing Analytics',
      'Product Usage',
      'Finance Overview',
      'Support KPIs',
      'IoT Telemetry',
      'HR Insights',
      'SEO Tracker',
      'Energy Monitor',
      'Fleet Tracker',
      'Cohort Explorer',
    ],
    style: { palette: { primary: '#0ea5e9', surface: '#0f172a' }, font: 'IBM Plex Sans', density: 'compact' },
  },
];

export interface OriginalSpec {
  tag: DemoTag;
  name: string;
  description: string;
  tags: string[];
  modules: string[];
  configuration: Record<string, unknown>;
  designSystem: Record<string, unknown>;
}

/** `n` originals per theme: the theme's core plus a rotating pick of its extras, with their dependencies. */
export function originals(perTheme: number): OriginalSpec[] {
  const out: OriginalSpec[] = [];
  for (const theme of themes) {
    for (let i = 0; i < perTheme; i++) {
      const extras = [theme.extras[i % theme.extras.length]!, theme.extras[(i * 3 + 1) % theme.extras.length]!];
      out.push({
        tag: theme.tag,
        name: theme.names[i % theme.names.length]!,
        description: `A ${theme.tag} blueprint: ${theme.names[i % theme.names.length]!.toLowerCase()} in ${theme.language} with ${theme.framework}.`,
        tags: [theme.tag, theme.language, ...(i % 2 === 0 ? ['starter'] : [])],
        modules: withDependencies([...theme.core, ...extras]),
        configuration: { language: theme.language, framework: theme.framework, ci: 'github-actions' },
        designSystem: theme.style,
      });
    }
  }
  return out;
}

/** The keys and every module they depend on, dependencies first. */
export function withDependencies(keys: string[]): string[] {
  const ordered: string[] = [];
  const visit = (key: string) => {
    if (ordered.includes(key)) return;
    for (const dep of moduleLibrary[key]!.depends_on) visit(dep);
    ordered.push(key);
  };
  keys.forEach(visit);
  return ordered;
}
