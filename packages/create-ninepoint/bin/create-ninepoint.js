#!/usr/bin/env node
// `npm create ninepoint <folder>`: a new Ninepoint app in a folder of its own: its spec, a
// package.json whose `npm start` serves it, and a README. Plain JavaScript with no dependencies,
// so that `npm create` fetches only this; the spec it writes is one the CLI carries too: the
// repository's examples/ (copied into this package's examples/ when it is packed).
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.error(
    `Ninepoint needs Node.js 22.12 or newer (24 LTS recommended); this is Node ${process.versions.node}.\n` +
      'Upgrade, then run the command again:\n\n  npm install -g --force node@24\n',
  );
  process.exit(2);
}

const { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } = process.getBuiltinModule('node:fs');
const { basename, join, resolve } = process.getBuiltinModule('node:path');
const { fileURLToPath } = process.getBuiltinModule('node:url');
const { parseArgs } = process.getBuiltinModule('node:util');

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const packed = fileURLToPath(new URL('../examples/', import.meta.url));
const examples = existsSync(packed) ? packed : fileURLToPath(new URL('../../../examples/', import.meta.url));
const exampleNames = readdirSync(examples)
  .filter((file) => file.endsWith('.md') && file !== 'README.md' && file !== 'blank.md')
  .map((file) => file.slice(0, -3))
  .sort();

const USAGE = `Usage: npm create ninepoint <folder> [-- --example <name>]

Makes <folder> with a Ninepoint spec (spec.md: the blank spec, or an example), a package.json
whose \`npm start\` serves it, and a README.

  --example <name>  start from a whole example: ${exampleNames.join(', ')}
  -h, --help        show this help
`;

/** Stops with a message and exit code 2 (the command could not run as asked), as the CLI does. */
function fail(message) {
  console.error(`create-ninepoint: ${message}\n\n${USAGE}`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: { example: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
} catch (error) {
  fail(error.message);
}
if (parsed.values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const [folderArgument, ...extra] = parsed.positionals;
if (folderArgument === undefined) fail('name the folder to make, e.g. npm create ninepoint my-app');
if (extra.length > 0) fail(`one folder at a time (also given: ${extra.join(' ')})`);
const example = parsed.values.example;
if (example !== undefined && !exampleNames.includes(example)) {
  fail(`there is no example "${example}"; the examples are ${exampleNames.join(', ')}.`);
}

const folder = resolve(folderArgument);
const name = basename(folder);
if (existsSync(folder) && readdirSync(folder).length > 0) {
  fail(`${folderArgument} is there already and is not empty; name a new folder.`);
}

/** `my-app` → `My app`: the title of a blank spec. */
const title = name.replace(/[-_.]+/g, ' ').replace(/^./, (c) => c.toUpperCase());
const packageName =
  name
    .toLowerCase()
    .replace(/[^a-z0-9-._~]+/g, '-')
    .replace(/^[-._]+/, '') || 'ninepoint-app';

let spec;
const beside = [];
if (example === undefined) {
  spec = readFileSync(join(examples, 'blank.md'), 'utf8').replace(
    /^# Specification: .*$/m,
    `# Specification: ${title}`,
  );
} else {
  spec = readFileSync(join(examples, `${example}.md`), 'utf8');
  // The TypeScript modules its point 7 names, and the types they import.
  for (const companion of [example, `${example}.types.ts`]) {
    if (existsSync(join(examples, companion))) beside.push(companion);
  }
}

mkdirSync(folder, { recursive: true });
writeFileSync(join(folder, 'spec.md'), spec);
for (const companion of beside) cpSync(join(examples, companion), join(folder, companion), { recursive: true });
const range = `^${manifest.version}`;
writeFileSync(
  join(folder, 'package.json'),
  `${JSON.stringify(
    {
      name: packageName,
      version: '0.1.0',
      private: true,
      type: 'module',
      description: `${title}: a product whose specification is spec.md, served by Ninepoint.`,
      scripts: {
        start: 'ninepoint serve spec.md',
        dev: 'ninepoint dev spec.md',
        check: 'ninepoint check spec.md',
      },
      dependencies: { '@ninepoint/cli': range },
      engines: { node: '>=22.12' },
    },
    null,
    2,
  )}\n`,
);
const firstRole = /^## 6\.[\s\S]*?\n\| *role *\|[^\n]*\n\|[-| :]+\|\n\| *([a-z][a-z0-9_]*) *\|/m.exec(spec)?.[1];
writeFileSync(
  join(folder, 'README.md'),
  `# ${example === undefined ? title : (/^# Specification: (.*)$/m.exec(spec)?.[1] ?? title)}

This app is its specification: [spec.md](spec.md), nine points in one Markdown file. Ninepoint
checks it like a compiler and serves it as a web app: an API with an OpenAPI document, a database
(SQLite in \`ninepoint.db\`, or PostgreSQL with \`DATABASE_URL\`), sign-in, permissions, state
machines and the screens the spec names. Change the spec, and the app follows.

\`\`\`sh
npm install
npm run check        # the spec's diagnostics, with line and column
npm start            # serves it at http://127.0.0.1:3000
npm run dev          # serves it with the Studio, applying every save, with demo users
npx ninepoint users add you@example.org spec.md${firstRole ? ` --role ${firstRole}` : ''}   # someone to sign in as
\`\`\`

The format is described in \`node_modules/@ninepoint/cli/docs/spec-format.md\`, and every command
in \`node_modules/@ninepoint/cli/docs/cli.md\`. Whole examples: \`npx ninepoint new --example <name>\`
(${exampleNames.join(', ')}).
${beside.length > 0 ? `\nThe TypeScript beside the spec (${beside.join(', ')}) is the code its point 7 names.\n` : ''}`,
);

const shown = folderArgument.includes(' ') ? `"${folderArgument}"` : folderArgument;
process.stdout.write(
  `Made ${shown}: spec.md (${example === undefined ? 'the blank spec' : `the ${example} example`}), package.json and README.md.\n\n` +
    `  cd ${shown}\n  npm install\n  npm start\n`,
);
