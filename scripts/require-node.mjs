// Runs before `npm start` and `npm test`: Ninepoint needs Node 22.12+ (24 LTS recommended).
// Plain JavaScript on purpose, so it runs on the old Node it is warning about.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.error(
    `Ninepoint needs Node.js 22.12 or newer (24 LTS recommended); this is Node ${process.versions.node}.\n` +
      'Upgrade, then run the command again:\n\n' +
      '  npm install -g --force node@24   # puts Node 24 at /usr/bin/node\n' +
      '  rm -rf node_modules && npm install\n',
  );
  process.exit(1);
}
