import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LENDING_DESK, listeningServer } from '../packages/server/test/helpers.ts';
import { NODE_FLAGS } from '../scripts/node-flags.mjs';

// Docker cannot run here: these check what would otherwise fail only at `docker build` or at run
// time in a container (docs/deploy.md).
const root = new URL('../', import.meta.url);
const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8').replace(/\\\n\s*/g, ' ');
const instructions = dockerfile
  .split('\n')
  .filter((line) => /^[A-Z]+\s/.test(line))
  .map((line) => {
    const [, keyword = '', rest = ''] = /^([A-Z]+)\s+(.*)$/.exec(line) ?? [];
    return { keyword, rest };
  });
const runtime = instructions.slice(instructions.findLastIndex((i) => i.keyword === 'FROM'));

/** An exec-form array (`["node", "-e", …]`): Docker silently runs anything else through a shell. */
function execForm(text: string): string[] {
  const json = /(\[.*\])\s*$/.exec(text)?.[1];
  if (!json) throw new Error(`not in exec form: ${text}`);
  return JSON.parse(json) as string[];
}

describe('the Dockerfile', () => {
  it('copies the manifest of every workspace before npm ci, so the install layer has them all', () => {
    const { workspaces } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { workspaces: string[] };
    const install = instructions.findIndex((i) => i.keyword === 'RUN' && i.rest.startsWith('npm ci'));
    const copied = instructions.slice(0, install).filter((i) => i.keyword === 'COPY');
    for (const workspace of workspaces) {
      expect(copied.map((c) => c.rest)).toContain(`${workspace}/package.json ${workspace}/`);
    }
  });

  it('runs the bin it names, as a user who is not root, with the database in the volume', () => {
    const [entry] = execForm(runtime.find((i) => i.keyword === 'ENTRYPOINT')?.rest ?? '');
    expect(entry).toBe('ninepoint');
    expect(dockerfile).toContain('ln -s /app/packages/cli/bin/ninepoint.js /usr/local/bin/ninepoint');
    expect(existsSync(new URL('packages/cli/bin/ninepoint.js', root))).toBe(true);
    const user = runtime.findIndex((i) => i.keyword === 'USER');
    expect(runtime[user]?.rest).toBe('node');
    expect(user).toBeLessThan(runtime.findIndex((i) => i.keyword === 'ENTRYPOINT'));
    expect(execForm(runtime.find((i) => i.keyword === 'CMD')?.rest ?? '')).toEqual([
      'serve',
      '/spec/spec.md',
      '--db',
      '/data/ninepoint.db',
    ]);
    expect(runtime.find((i) => i.keyword === 'VOLUME')?.rest).toBe('/data');
    expect(runtime.find((i) => i.keyword === 'STOPSIGNAL')?.rest).toBe('SIGTERM');
  });

  it("gives the server's node the flags npm start gives it (V8's young generation capped)", () => {
    const env = runtime.find((i) => i.keyword === 'ENV')?.rest ?? '';
    expect(/\bNODE_OPTIONS=(\S+)/.exec(env)?.[1]).toBe(NODE_FLAGS.join(' '));
  });

  it('has a health check that passes against a serving app and fails when nothing answers', async () => {
    const health = runtime.find((i) => i.keyword === 'HEALTHCHECK')?.rest ?? '';
    const [command, ...args] = execForm(health.slice(health.indexOf('CMD') + 3));
    expect(command).toBe('node');
    const served = await listeningServer(LENDING_DESK);
    try {
      // In a process of its own, as Docker runs it; the server answers from this one meanwhile.
      const check = (port: number) =>
        new Promise<number | null>((resolve) => {
          const child = spawn(process.execPath, args, { env: { ...process.env, PORT: String(port) } });
          child.on('exit', resolve);
        });
      expect(await check(served.port)).toBe(0);
      await served.server.close();
      expect(await check(served.port)).toBe(1);
    } finally {
      await served.close();
    }
  });

  it('leaves installed files, builds and databases out of the build context', () => {
    const ignored = readFileSync(new URL('.dockerignore', root), 'utf8').split('\n');
    for (const pattern of ['.git', '**/node_modules', '**/dist', '*.db', '*.db-wal', 'data']) {
      expect(ignored).toContain(pattern);
    }
  });
});
