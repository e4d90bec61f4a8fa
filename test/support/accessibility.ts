/**
 * The accessibility check of the e2e tier: axe-core, run in the page as it stands, with the
 * WCAG 2 A and AA rules. A test asserts the list is empty; when it is not, each line names the
 * rule, its impact, the element and what to fix, so the failure reads without a debugger.
 */
import axe from 'axe-core';
import type { Page } from 'playwright-core';

/**
 * The rule sets checked: WCAG 2.0, 2.1 and 2.2 at levels A and AA, and axe's best practices
 * (headings that skip no level, table headers that say what their column holds).
 */
export const axeTags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

interface Violation {
  id: string;
  impact: string;
  help: string;
  nodes: Array<{ target: string; summary: string }>;
}

/**
 * The WCAG 2 A/AA violations on the page, one line per element: rule, impact, target, summary.
 * axe-core is injected once per document (a reload or navigation injects it again), evaluated
 * by the debugging protocol: the app's CSP (script-src 'self') rightly refuses an inline script.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  const loaded = await page.evaluate(() => 'axe' in globalThis);
  if (!loaded) await page.evaluate(axe.source);
  const violations = await page.evaluate(async (tags): Promise<Violation[]> => {
    const run = (globalThis as unknown as { axe: typeof axe }).axe;
    const results = await run.run(document, {
      runOnly: { type: 'tag', values: tags },
      resultTypes: ['violations'],
    });
    return results.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? 'unknown',
      help: v.help,
      nodes: v.nodes.map((n) => ({
        target: n.target.map(String).join(' › '),
        summary: (n.failureSummary ?? '').replace(/\s+/g, ' ').trim(),
      })),
    }));
  }, axeTags);
  return violations.flatMap((v) =>
    v.nodes.map((n) => `${v.id} (${v.impact}) at ${n.target}: ${v.help}. ${n.summary}`),
  );
}
