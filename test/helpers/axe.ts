import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { untilInPage } from './browser';

const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Runs axe-core (WCAG 2.x A and AA rules) on the page as it is now and returns its serious and critical
 * violations, each as "rule-id (impact): help — first offending selectors", so a failing test says what to fix.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Colours are measured as drawn: a dialog still fading in would read as low contrast.
  await untilInPage(page, 'document.getAnimations().every((a) => a.playState !== "running")');
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(axeSource); // evaluated over CDP, so a Content-Security-Policy cannot block it
  const violations = await page.evaluate<AxeViolation[]>(`window.axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] })
    .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join(', ')}`,
    );
}

/** Asserts the page has no serious or critical accessibility violation. */
export async function expectAccessible(page: Page): Promise<void> {
  expect(await seriousViolations(page)).toEqual([]);
}
