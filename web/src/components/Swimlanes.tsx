import { Text } from '@mantine/core';
import type { ArchitectureModuleDetailQuery } from '../generated/graphql';

type Detail = NonNullable<NonNullable<NonNullable<ArchitectureModuleDetailQuery['architecture']>['node']>['module']>;

/**
 * The module detail zoom level: one lane per module (the module, its dependencies, its dependents), the
 * steps placed on one shared time axis (their place in the blueprint's run order).
 */
export function Swimlanes({ detail }: { detail: Detail }) {
  const orders = [...new Set(detail.swimlanes.flatMap((l) => l.steps.map((s) => s.order)))].sort((a, b) => a - b);
  return (
    <div className="swimlanes" data-testid="swimlanes">
      <table aria-label={`Steps of ${detail.module.name} in swimlanes`}>
        <thead>
          <tr>
            <th scope="col">Lane</th>
            {orders.map((o) => (
              <th scope="col" key={o}>
                #{o}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {detail.swimlanes.map((lane) => (
            <tr key={lane.moduleKey} className={`lane-${lane.relation}`} data-testid="swimlane">
              <th scope="row">
                {lane.name}
                <br />
                <Text span size="xs" c="dimmed" fw={400}>
                  {lane.relation.toLowerCase()}
                </Text>
              </th>
              {orders.map((o) => {
                const step = lane.steps.find((s) => s.order === o);
                return (
                  <td key={o}>
                    {step && (
                      <div className="step-card" title={step.acceptance.join('\n')}>
                        <Text size="xs" fw={600}>
                          {step.title}
                        </Text>
                        <Text size="xs" c="dimmed">
                          {step.key}
                        </Text>
                      </div>
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
