import type { AreaModule } from '../platform/area';
import { ChangelogEntryResolver, BlueprintChangelogResolver } from './changelog.resolver';
import { changelogRoutes } from './changelog.routes';

/** The changelog area: everything it adds to the app. */
export const changelogModule: AreaModule = {
  name: 'changelog',
  resolvers: [ChangelogEntryResolver, BlueprintChangelogResolver],
  routes: changelogRoutes,
};
