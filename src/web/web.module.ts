import type { AreaModule } from '../platform/area';
import { webRoutes } from './web.routes';

/** The web console for people: its built files at `/`, and index.html for its client routes. */
export const webModule: AreaModule = {
  name: 'web',
  routes: webRoutes,
};
