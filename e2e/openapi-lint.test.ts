import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { compileApp } from '@ninepoint/server';
import { blankSpec, checkSpec } from '@ninepoint/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

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
  problems: {
    ruleId: string;
    severity: string;
    message: string;
    location: { pointer: string; source?: { ref: string } }[];
  }[];
}

/**
 * Redocly's reports, one JSON document after another (`{…}{…}`), in the order of the files it was
 * given: split where a top-level document ends (strings skipped, since they may hold braces).
 */
function jsonDocuments(text: string): unknown[] {
  const documents: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') {
      if (depth++ === 0) start = i;
    } else if (c === '}' && --depth === 0) documents.push(JSON.parse(text.slice(start, i + 1)));
  }
  return documents;
}

describe('the OpenAPI document under redocly lint (recommended rules)', () => {
  const files = specs.map(([name]) => join(folder, `${name.replace(/[/.]/g, '-')}.json`));
  /** Each spec's report, by its name: one Redocly process lints every document (a process each took ~5 s to start). */
  const reports = new Map<string, LintReport>();

  beforeAll(() => {
    const written: string[] = [];
    for (const [at, [, source]] of specs.entries()) {
      const { model, ok } = checkSpec(source);
      if (!ok) continue; // its test fails on the diagnostics
      writeFileSync(files[at] as string, JSON.stringify(compileApp(model).openapi, null, 2));
      written.push(files[at] as string);
    }
    const run = spawnSync(process.execPath, [redocly, 'lint', ...written, '--format=json'], {
      encoding: 'utf8',
      // Redocly reports usage to its servers unless told not to; this machine reaches none.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 64 * 1024 * 1024,
    });
    const documents = jsonDocuments(run.stdout) as LintReport[];
    if (documents.length !== written.length)
      throw new Error(`redocly lint gave ${documents.length} reports for ${written.length} files:\n${run.stderr}`);
    for (const [at, file] of written.entries()) {
      const report = documents[at] as LintReport;
      // Each report's problems name its own file: the reports are in the order of the files.
      for (const problem of report.problems) {
        const ref = problem.location[0]?.source?.ref ?? '';
        if (basename(ref) !== basename(file))
          throw new Error(`the report for ${file} names ${ref}: redocly's reports are out of order`);
      }
      reports.set(file, report);
    }
  });

  it.each(specs)('of %s has no error and no unused component', (name, source) => {
    const { ok, diagnostics } = checkSpec(source);
    expect(ok, JSON.stringify(diagnostics.filter((d) => d.severity === 'error'))).toBe(true);
    const report = reports.get(join(folder, `${name.replace(/[/.]/g, '-')}.json`));
    expect(report, `redocly reported nothing for ${name}`).toBeDefined();
    const blocking = (report as LintReport).problems
      .filter((p) => p.severity === 'error' || p.ruleId === 'no-unused-components')
      .map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(blocking).toEqual([]);
    expect((report as LintReport).totals.errors).toBe(0);
  });
});
