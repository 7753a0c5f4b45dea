import { Text } from '@mantine/core';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { TeamPageQuery } from '../generated/graphql';

type Day = NonNullable<TeamPageQuery['team']>['analytics']['days'][number];

const SERIES = [
  { key: 'blueprintsCreated', name: 'Blueprints created', color: '#364fc7' },
  { key: 'executionsStarted', name: 'Runs started', color: '#2b8a3e' },
  { key: 'executionsCompleted', name: 'Runs completed', color: '#087f5b' },
  { key: 'forks', name: 'Forks', color: '#c92a2a' },
  { key: 'starsReceived', name: 'Stars received', color: '#e67700' },
] as const;

/** The team's activity per UTC day as a bar chart (recharts), with a table-free text summary for screen readers (the drawing itself is aria-hidden, with no keyboard layer). */
export function TeamActivityChart({ days, from, to }: { days: Day[]; from: string; to: string }) {
  const totals = SERIES.map((s) => `${days.reduce((n, d) => n + d[s.key], 0)} ${s.name.toLowerCase()}`).join(', ');
  return (
    <figure style={{ margin: 0 }} data-testid="team-chart">
      <figcaption>
        <Text size="sm" c="dimmed">
          Activity from {from} to {to}: {totals}.
        </Text>
      </figcaption>
      <div style={{ width: '100%', height: 260 }} aria-hidden>
        <ResponsiveContainer>
          <BarChart data={days.map((d) => ({ ...d, day: d.day.slice(5) }))} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="day" fontSize={11} />
            <YAxis allowDecimals={false} fontSize={11} />
            <Tooltip />
            <Legend />
            {SERIES.map((s) => (
              <Bar key={s.key} dataKey={s.key} name={s.name} stackId="a" fill={s.color} isAnimationActive={false} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
