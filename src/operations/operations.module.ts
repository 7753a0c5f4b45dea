import type { AreaModule } from '../platform/area';
import { OperationResolver } from './operation.resolver';
import { operationRoutes } from './operation.routes';

/** The operations area: everything it adds to the app. */
export const operationsModule: AreaModule = {
  name: 'operations',
  resolvers: [OperationResolver],
  routes: operationRoutes,
};
