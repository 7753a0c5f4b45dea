import { Text } from '@mantine/core';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { TeamPageQuery } from '../generated/graphql';
import { plural } from './Status';

type Day = NonNullable<TeamPageQuery['team']>['analytics']['days'][number];

// `one` and `many`: the caption's words for a count of 1 and for any other count ("1 fork", "2 forks").
const SERIES = [
  { key: 'blueprintsCreated', name: 'Blueprints created', one: 'blueprint created', many: 'blueprints created', color: '#364fc7' },
  { key: 'executionsStarted', name: 'Runs started', one: 'run started', many: 'runs started', color: '#2b8a3e' },
  { key: 'executionsCompleted', name: 'Runs completed', one: 'run completed', many: 'runs completed', color: '#087f5b' },
  { key: 'forks', name: 'Forks', one: 'fork', many: 'forks', color: '#c92a2a' },
  { key: 'starsReceived', name: 'Stars received', one: 'star received', many: 'stars received', color: '#e67700' },
] as const;

/** The team's activity per UTC day as a bar chart (recharts), with a table-free text summary for screen readers (the drawing itself is aria-hidden, with no keyboard layer). */
export function TeamActivityChart({ days, from, to }: { days: Day[]; from: string; to: string }) {
  const totals = SERIES.map((s) =>
    plural(
      days.reduce((n, d) => n + d[s.key], 0),
      s.one,
      s.many,
    ),
  ).join(', ');
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
