import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileApp } from '@ninepoint/server';
import { blankSpec, checkSpec } from '@ninepoint/spec';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The OpenAPI document of every example, every server test fixture and the blank spec passes
 * Redocly's recommended rules with no error, and has no component nobody uses: generators and
 * gateways that read it accept it as it is.
 */
const examples = new URL('../examples/', import.meta.url);
const fixtures = new URL('../packages/server/test/fixtures/', import.meta.url);
const specs: [string, string][] = [
  ['blank', blankSpec()],
  ...readdirSync(examples)
    .filter((f) => f.endsWith('.md') && f !== 'README.md')
    .map((f): [string, string] => [`examples/${f}`, readFileSync(new URL(f, examples), 'utf8')]),
  ...readdirSync(fixtures)
    .filter((f) => f.endsWith('.md') && f !== 'docs-base.md')
    .map((f): [string, string] => [`fixtures/${f}`, readFileSync(new URL(f, fixtures), 'utf8')]),
];

const redocly = join(createRequire(import.meta.url).resolve('@redocly/cli/package.json'), '..', 'bin', 'cli.js');
const folder = mkdtempSync(join(tmpdir(), 'ninepoint-openapi-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

describe('the OpenAPI document under redocly lint (recommended rules)', () => {
  it.each(specs)('of %s has no error and no unused component', (name, source) => {
    const { model, ok, diagnostics } = checkSpec(source);
    expect(ok, JSON.stringify(diagnostics.filter((d) => d.severity === 'error'))).toBe(true);
    const file = join(folder, `${name.replace(/[/.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(compileApp(model).openapi, null, 2));
    const run = spawnSync(process.execPath, [redocly, 'lint', file, '--format=json'], {
      encoding: 'utf8',
      // Redocly reports usage to its servers unless told not to; this machine reaches none.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 64 * 1024 * 1024,
    });
    const report = JSON.parse(run.stdout) as LintReport;
    const blocking = report.problems
      .filter((p) => p.severity === 'error' || p.ruleId === 'no-unused-components')
      .map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(blocking).toEqual([]);
    expect(report.totals.errors).toBe(0);
  });
});
