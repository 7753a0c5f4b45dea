import { ActionIcon, Alert, Button, Card, Group, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { errorText } from '../client';
import { PlanForEditingDocument, UpdateBlueprintPlanDocument } from '../generated/graphql';
import { Loading } from '../components/Status';

interface EditModule {
  key: string;
  name: string;
  summary: string;
  kind: string;
  dependsOn: string;
}
interface EditStep {
  key: string;
  moduleKey: string;
  title: string;
  instructions: string;
  acceptance: string;
}

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function move<T>(items: T[], from: number, to: number): T[] {
  if (to < 0 || to >= items.length) return items;
  const copy = [...items];
  const [item] = copy.splice(from, 1);
  copy.splice(to, 0, item!);
  return copy;
}

/**
 * The owner's plan editor: modules and steps added, changed, removed and reordered, saved as a whole with
 * the version it was opened at. When someone saved first the server answers CONFLICT; the editor says the
 * plan changed since it was opened and offers to reload it.
 */
export function PlanEditor({ id }: { id: string }) {
  const [{ data, error }, refetch] = useQuery({ query: PlanForEditingDocument, variables: { id }, requestPolicy: 'network-only' });
  const [saveState, save] = useMutation(UpdateBlueprintPlanDocument);
  const [modules, setModules] = useState<EditModule[]>([]);
  const [steps, setSteps] = useState<EditStep[]>([]);
  const [base, setBase] = useState<number | null>(null);
  const [stale, setStale] = useState(false);
  const [saved, setSaved] = useState<number | null>(null);

  const bp = data?.blueprint;
  useEffect(() => {
    if (!bp) return;
    setModules(bp.modules.map((m) => ({ key: m.key, name: m.name, summary: m.summary, kind: m.kind, dependsOn: m.dependsOn.join(', ') })));
    setSteps(bp.steps.map((s) => ({ key: s.key, moduleKey: s.moduleKey, title: s.title, instructions: s.instructions, acceptance: s.acceptance.join(', ') })));
    setBase(bp.version);
    setStale(false);
  }, [bp]);

  if (error) return <Alert color="red">{errorText(error)}</Alert>;
  if (!bp || base === null) return <Loading what="the plan" />;

  const setModule = (i: number, patch: Partial<EditModule>) => setModules(modules.map((m, j) => (j === i ? { ...m, ...patch } : m)));
  const setStep = (i: number, patch: Partial<EditStep>) => setSteps(steps.map((s, j) => (j === i ? { ...s, ...patch } : s)));

  const submit = async () => {
    setSaved(null);
    const r = await save({
      id,
      input: {
        baseVersion: base,
        modules: modules.map((m) => ({ key: m.key.trim(), name: m.name, summary: m.summary, kind: m.kind.trim(), dependsOn: list(m.dependsOn) })),
        steps: steps.map((s) => ({
          key: s.key.trim(),
          moduleKey: s.moduleKey.trim(),
          title: s.title,
          instructions: s.instructions,
          acceptance: list(s.acceptance),
        })),
        configuration: bp.configuration,
        designSystem: bp.designSystem,
      },
    });
    if (r.error?.graphQLErrors.some((e) => e.extensions?.code === 'CONFLICT')) setStale(true);
    else if (r.data) {
      setBase(r.data.updateBlueprintPlan.version);
      setSaved(r.data.updateBlueprintPlan.version);
    }
  };

  return (
    <Stack>
      <Text size="sm" c="dimmed">
        Editing version {base}. Saving writes a new version; keys are lowercase words joined by hyphens.
      </Text>
      {stale && (
        // No Alert title: Mantine draws it in the alert's colour, which misses the contrast ratio on a light background.
        <Alert color="orange" role="alert">
          <Stack gap="xs">
            <Text size="sm" fw={700}>
              The plan changed since you opened it
            </Text>
            <Text size="sm">Someone saved a newer version. Reload it to see their changes, then make yours again.</Text>
            <Button variant="default" w="fit-content" onClick={() => refetch({ requestPolicy: 'network-only' })}>
              Reload the plan
            </Button>
          </Stack>
        </Alert>
      )}
      {saveState.error && !stale && <Alert color="red">{errorText(saveState.error)}</Alert>}
      {saved !== null && <Alert color="green">Saved as version {saved}.</Alert>}
      <Title order={3}>Modules</Title>
      {modules.map((m, i) => (
        <Card key={i} withBorder component="fieldset" aria-label={`Module ${i + 1}`}>
          <Group grow align="end">
            <TextInput label="Key" value={m.key} onChange={(e) => setModule(i, { key: e.currentTarget.value })} />
            <TextInput label="Name" value={m.name} onChange={(e) => setModule(i, { name: e.currentTarget.value })} />
            <TextInput label="Kind" value={m.kind} onChange={(e) => setModule(i, { kind: e.currentTarget.value })} />
            <TextInput label="Depends on" value={m.dependsOn} onChange={(e) => setModule(i, { dependsOn: e.currentTarget.value })} />
          </Group>
          <Textarea label="Summary" mt="xs" value={m.summary} onChange={(e) => setModule(i, { summary: e.currentTarget.value })} />
          <Group gap="xs" mt="xs">
            <ActionIcon variant="default" aria-label={`Move module ${m.key} up`} onClick={() => setModules(move(modules, i, i - 1))}>
              ↑
            </ActionIcon>
            <ActionIcon variant="default" aria-label={`Move module ${m.key} down`} onClick={() => setModules(move(modules, i, i + 1))}>
              ↓
            </ActionIcon>
            <Button size="xs" color="red" variant="subtle" onClick={() => setModules(modules.filter((_, j) => j !== i))}>
              Remove module {m.key}
            </Button>
          </Group>
        </Card>
      ))}
      <Button variant="default" w="fit-content" onClick={() => setModules([...modules, { key: '', name: '', summary: '', kind: 'service', dependsOn: '' }])}>
        Add module
      </Button>
      <Title order={3}>Steps (in run order)</Title>
      {steps.map((s, i) => (
        <Card key={i} withBorder component="fieldset" aria-label={`Step ${i + 1}`}>
          <Group grow align="end">
            <TextInput label="Step key" value={s.key} onChange={(e) => setStep(i, { key: e.currentTarget.value })} />
            <TextInput label="Module" value={s.moduleKey} onChange={(e) => setStep(i, { moduleKey: e.currentTarget.value })} />
            <TextInput label="Title" value={s.title} onChange={(e) => setStep(i, { title: e.currentTarget.value })} />
          </Group>
          <Textarea label="Instructions" mt="xs" value={s.instructions} onChange={(e) => setStep(i, { instructions: e.currentTarget.value })} />
          <TextInput
            label="Acceptance criteria (comma separated)"
            mt="xs"
            value={s.acceptance}
            onChange={(e) => setStep(i, { acceptance: e.currentTarget.value })}
          />
          <Group gap="xs" mt="xs">
            <ActionIcon variant="default" aria-label={`Move step ${s.key} up`} onClick={() => setSteps(move(steps, i, i - 1))}>
              ↑
            </ActionIcon>
            <ActionIcon variant="default" aria-label={`Move step ${s.key} down`} onClick={() => setSteps(move(steps, i, i + 1))}>
              ↓
            </ActionIcon>
            <Button size="xs" color="red" variant="subtle" onClick={() => setSteps(steps.filter((_, j) => j !== i))}>
              Remove step {s.key}
            </Button>
          </Group>
        </Card>
      ))}
      <Button
        variant="default"
        w="fit-content"
        onClick={() => setSteps([...steps, { key: '', moduleKey: modules[0]?.key ?? '', title: '', instructions: '', acceptance: '' }])}
      >
        Add step
      </Button>
      <Button w="fit-content" loading={saveState.fetching} onClick={submit}>
        Save plan
      </Button>
    </Stack>
  );
}
